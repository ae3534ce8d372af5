package upstream

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// TestVeo follows an operation as new-api's Gemini task adaptor does: the
// key in x-goog-api-key, predictLongRunning, the operation by name, the file
// with ?key=.
func TestVeo(t *testing.T) {
	t.Parallel()
	s := New(Veo)
	defer s.Close()
	const submit = "/v1beta/models/veo-3.0-generate-001:predictLongRunning"
	body := `{"instances":[{"prompt":"a fox"}],"parameters":{"resolution":"720p"}}`
	if a := callWith(t, http.MethodPost, s.URL+submit, body, "X-Goog-Api-Key", "wrong"); a.status != http.StatusBadRequest {
		t.Errorf("wrong key: %d %s", a.status, a.body)
	}
	op := decode[veoOperation](t, callWith(t, http.MethodPost, s.URL+submit, body, "X-Goog-Api-Key", s.Key))
	if !strings.HasPrefix(op.Name, "models/veo-3.0-generate-001/operations/") || op.Done {
		t.Fatalf("submit: %+v", op)
	}
	if subs := s.Submissions(); len(subs) != 1 || subs[0].Prompt != "a fox" || subs[0].GatewayID != VeoGatewayID(op.Name) || subs[0].TaskID != op.Name {
		t.Fatalf("submissions %+v", subs)
	}
	get := func(name string) veoOperation {
		return decode[veoOperation](t, callWith(t, http.MethodGet, s.URL+"/v1beta/"+name, "", "X-Goog-Api-Key", s.Key))
	}
	if got := get(op.Name); got.Done || got.Response != nil {
		t.Fatalf("before Succeed: %+v", got)
	}
	if err := s.Succeed(op.Name); err != nil {
		t.Fatal(err)
	}
	got := get(op.Name)
	if !got.Done || got.Response == nil || len(got.Response.GenerateVideoResponse.GeneratedSamples) != 1 {
		t.Fatalf("after Succeed: %+v", got)
	}
	uri := got.Response.GenerateVideoResponse.GeneratedSamples[0].Video.URI
	if a := callWith(t, http.MethodGet, uri, "", "", ""); a.status != http.StatusBadRequest {
		t.Errorf("file without the key: %d", a.status)
	}
	if a := callWith(t, http.MethodGet, uri+"&key="+s.Key, "", "", ""); a.status != http.StatusOK || !bytes.Equal(a.body, Clip(op.Name)) {
		t.Errorf("file with ?key=: %d, %d bytes", a.status, len(a.body))
	}
	op2 := decode[veoOperation](t, callWith(t, http.MethodPost, s.URL+submit, body, "X-Goog-Api-Key", s.Key))
	if err := s.Fail(op2.Name, "internal error"); err != nil {
		t.Fatal(err)
	}
	if f := get(op2.Name); !f.Done || f.Error == nil || f.Error.Message != "internal error" {
		t.Errorf("failed operation: %+v", f)
	}
	r := callWith(t, http.MethodPost, s.URL+submit, `{"instances":[{"prompt":"p `+RejectMarker+`"}]}`, "X-Goog-Api-Key", s.Key)
	if r.status != http.StatusBadRequest || s.Tasks() != 2 || len(s.Submissions()) != 3 {
		t.Errorf("refused prompt: %d %s; %d tasks, %d submissions", r.status, r.body, s.Tasks(), len(s.Submissions()))
	}
}
