// Package apidiag words the diagnostics of a failed call to the video service
// for every resource, data source and ephemeral resource of the provider: what
// happened, what to do, then the original error. A resource with clip
// arguments hands in how a rejected request maps to one of them (Arguments);
// this package knows no schema.
package apidiag

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/videogen/terraform-provider-videogen/internal/client"
)

// Operation names the API call that failed, because the same status means different
// things on different calls (a 404 on submission is an unknown model, on a read an
// unknown task).
type Operation int

const (
	Submit Operation = iota
	Get
	ListModels
	// Delete deletes a destroyed clip's video: nothing is billed or refunded,
	// and no clip argument is concerned.
	Delete
	// WrongAddress is a 404 from an address whose model list cannot be read
	// either: base_url does not point at the service.
	WrongAddress
)

// Arguments names the clip argument that a request the service rejected as
// invalid (HTTP 400) concerns, or "" when it cannot tell. A resource without
// clip arguments passes nil: its errors concern no argument of its own, so
// they are attached to the resource as a whole.
type Arguments func(err error) string

// model is the argument that names the model, for a resource that has one.
func (args Arguments) model() string {
	if args == nil {
		return ""
	}
	return "model"
}

// blamed is the argument a rejected request concerns, if args can tell.
func (args Arguments) blamed(err error) string {
	if args == nil {
		return ""
	}
	return args(err)
}

// Add turns a client error into a diagnostic whose detail says what happened,
// what to do, and then quotes the original error. Errors that concern one argument
// are attached to it.
func Add(diags *diag.Diagnostics, summary string, op Operation, err error, args Arguments) {
	advice, attr := Advice(op, err, args)
	detail := fmt.Sprintf("%s\n\nOriginal error: %s", advice, err)
	if attr != "" {
		diags.AddAttributeError(path.Root(attr), summary, detail)
		return
	}
	diags.AddError(summary, detail)
}

// Advice says what a failed call means and what to do, for the detail of its
// diagnostic, and names the argument the error concerns ("" for none). Only a
// resource with clip arguments (args not nil) has one: the model, or what args
// makes of a rejected request.
func Advice(op Operation, err error, args Arguments) (advice, attr string) {
	var apiErr *client.APIError
	var waitErr *client.WaitError
	switch {
	case client.IsAmbiguousSubmit(err):
		return "A task may exist (and be billed) although no task ID came back: the submission failed after its request " +
			"may already have reached the service" + doubtsText(err) + ". Before applying again, look in the service's " +
			"console for a task created just now with this prompt. If there is one, adopt it: import it into this " +
			"resource, at the address Terraform shows after \"with\" above (terraform import, or an import block), instead " +
			"of applying, which would submit another task; if there is none, apply again.", ""
	case errors.Is(err, client.ErrNotSubmitted):
		return "The run was interrupted before the submission reached the service: no task was created and nothing " +
			"was billed. Apply again to create the clip.", ""
	case op == WrongAddress:
		return "The service at base_url answered 404 Not Found, and its model list could not be read either, so base_url " +
			"(or VIDEOGEN_BASE_URL) most likely does not point at the video generation API: check its host and path (for " +
			"example https://host/api where the service is at https://host). Nothing was removed from state and nothing " +
			"was submitted; fix base_url and run the command again.", ""
	case errors.As(err, &waitErr) && !waitErr.Interrupted() && waitErr.Err != nil && op == Get:
		return Advice(op, waitErr.Err, args)
	case op == Delete && !client.IsUnauthorized(err):
		return deleteAdvice(err), ""
	case client.IsUnauthorized(err):
		return "The service rejected the API key. Check the provider's api_key argument or the VIDEOGEN_API_KEY " +
			"environment variable. The key may have been deleted or revoked in the console: create a new key there.", ""
	case client.IsForbidden(err), client.IsQuotaExhausted(err):
		return forbiddenAdvice(err), ""
	case client.IsUnknownModel(err):
		// A gateway's model_not_found: whatever its status (new-api sends 503),
		// it concerns the model argument and no retry changes it.
		return "The service (or the gateway in front of it) has no model, or no channel serving it, by this ID. Model " +
			"IDs must match GET /v1/models exactly; the videogen_models data source lists the ones this key may use. " +
			"Nothing was submitted or billed.", args.model()
	case client.IsNotFound(err) && op == Submit:
		return "The service does not know this model ID. Model IDs must match GET /v1/models exactly; the videogen_models " +
			"data source lists the ones this key may use.", args.model()
	case client.IsNotFound(err) && op == ListModels:
		return "The service has no /v1/models endpoint at this address. Check base_url (or VIDEOGEN_BASE_URL): it must " +
			"point at the video generation API, with or without its /v1 suffix.", ""
	case client.IsNotFound(err):
		return "The service does not know this task ID. If it was imported, check the ID; if it existed before, the " +
			"service no longer has it.", ""
	case client.IsBadRequest(err):
		attr := args.blamed(err)
		where := "Check the arguments against the service's rules"
		if attr != "" {
			where = fmt.Sprintf("This most likely concerns the %q argument", attr)
		}
		return fmt.Sprintf("The service rejected the request as invalid: %s. %s; failed requests are not billed.",
			strings.TrimSuffix(client.ServiceMessage(err), "."), where), attr
	case client.IsRateLimited(err):
		return fmt.Sprintf("The service's rate limit for this key was still exceeded %s. Lower Terraform's -parallelism, "+
			"raise the provider's max_retries, or ask the service for a higher limit; then apply again.", AttemptsText(err)), ""
	case client.IsServerError(err):
		return fmt.Sprintf("The service kept answering with a server error %s. Such errors are usually transient: apply "+
			"again in a few minutes. Failed requests are not billed.", AttemptsText(err)), ""
	case errors.As(err, &apiErr):
		return fmt.Sprintf("The service answered with an unexpected HTTP %d.", apiErr.StatusCode), ""
	}
	if client.IsUntrustedCertificate(err) {
		return UntrustedCertificateAdvice, ""
	}
	var tErr *client.TransportError
	if errors.As(err, &tErr) {
		return fmt.Sprintf("The service could not be reached %s. Check base_url (or VIDEOGEN_BASE_URL), the network path "+
			"to it, and the provider's request_timeout.", AttemptsText(err)), ""
	}
	return "The provider could not understand the service's answer. Check that base_url points at the video generation API.", ""
}

// UntrustedCertificateAdvice is what to do when the service's certificate is
// signed by an authority this machine does not trust: name the settings that
// make it trusted.
const UntrustedCertificateAdvice = "The service's TLS certificate is signed by a certificate authority this machine does " +
	"not trust. If your organisation's internal certificate authority signed it, give that authority's certificate " +
	"(PEM) to the provider: ca_file (a path) or ca_pem (the PEM text) in the provider block, or the VIDEOGEN_CA_FILE " +
	"environment variable. Otherwise check that base_url names the service and not something in between."

// doubtsText names the attempts that a gateway failed after forwarding them.
func doubtsText(err error) string {
	var ambiguous *client.AmbiguousSubmitError
	if errors.As(err, &ambiguous) && len(ambiguous.Doubts) > 0 {
		return " (" + strings.Join(ambiguous.Doubts, "; ") + ", and gateway errors such as 502 and 504 may come after " +
			"the service accepted a task)"
	}
	return ""
}

// deleteAdvice says what a failed delete of a video means: the clip stays
// billed as it was and nothing about its arguments is wrong, so none of the
// submission's advice (balance, model, arguments, billing) applies.
func deleteAdvice(err error) string {
	var apiErr *client.APIError
	switch {
	case client.IsForbidden(err):
		return fmt.Sprintf("The service refused to delete it (%s): this API key may not delete the videos of the "+
			"account or project that made it. Use the key that made the clip.", client.ServiceMessage(err))
	case client.IsNotFound(err):
		return "The service does not know this video any more."
	case client.IsRateLimited(err):
		return fmt.Sprintf("The service's rate limit for this key was still exceeded %s. Lower Terraform's -parallelism "+
			"or raise the provider's max_retries.", AttemptsText(err))
	case client.IsServerError(err):
		return fmt.Sprintf("The service kept answering with a server error %s. Such errors are usually transient: try "+
			"again in a few minutes.", AttemptsText(err))
	case errors.As(err, &apiErr):
		return fmt.Sprintf("The service refused the delete with HTTP %d (%s).", apiErr.StatusCode, client.ServiceMessage(err))
	}
	var tErr *client.TransportError
	if errors.As(err, &tErr) {
		return fmt.Sprintf("The service could not be reached %s. Check base_url (or VIDEOGEN_BASE_URL), the network path "+
			"to it, and the provider's request_timeout.", AttemptsText(err))
	}
	return "The provider could not understand the service's answer."
}

func forbiddenAdvice(err error) string {
	msg := client.ServiceMessage(err)
	switch client.CauseOfForbidden(err) {
	case client.ForbiddenBalance:
		return fmt.Sprintf("The account's balance is too low for this clip (%s). Top up the balance in the service's "+
			"console, then apply again; nothing was billed for this request.", msg)
	case client.ForbiddenModel:
		return fmt.Sprintf("This API key may not use the requested model (%s). Use a model this key may use (the "+
			"videogen_models data source lists them) or a key that is allowed this model.", msg)
	}
	return fmt.Sprintf("The service refused the request (%s). Either the account's balance is too low (top it up in the "+
		"console) or this API key may not use the requested model (choose one listed by the videogen_models data source).", msg)
}

// AttemptsText says how many attempts a failed call made, as a detail words it
// ("after 3 attempts over 2.5s").
func AttemptsText(err error) string {
	attempts, elapsed := client.Attempts(err)
	if attempts <= 1 {
		return "on the only attempt"
	}
	return fmt.Sprintf("after %d attempts over %s", attempts, elapsed.Round(100*time.Millisecond))
}
