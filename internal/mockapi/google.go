package mockapi

import (
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// The gemini and vertex dialects (DialectGemini, DialectVertex): Google's Veo
// as google.golang.org/genai v1.77 calls it. Their routes are Google's, outside
// /v1, and are served here; tasks, keys, the ledger and the test controls are
// the mock's own, so that a test drives a Veo operation as it drives any task.

// Endpoint patterns of Google's dialects, also the keys of Ledger.Requests.
const (
	epGeminiPredict   = "/v1beta/models/{model}:predictLongRunning"
	epGeminiOperation = "/v1beta/models/{model}/operations/{id}"
	epGeminiModels    = "/v1beta/models"
	epGeminiFile      = "/v1beta/files/{file}:download"
	epVertexPredict   = "/{version}/projects/{project}/locations/{location}/publishers/google/models/{model}:predictLongRunning"
	epVertexFetch     = "/{version}/projects/{project}/locations/{location}/publishers/google/models/{model}:fetchPredictOperation"
	epVertexModels    = "/{version}/publishers/google/models"
)

// googleRoute is a request to a Google dialect, matched.
type googleRoute struct {
	ep string
	// model is the model of a predict or fetch route; resource is the
	// vertex model's path (projects/.../models/{model}), which an operation
	// read must name.
	model, resource string
	// id is an operation's name or a file's ID.
	id string
}

// google reports whether the server speaks a Google dialect.
func (s *Server) google() bool { return s.gemini || s.vertex }

// matchGoogle maps a path of a Google dialect to its endpoint. Path segments are
// unescaped one by one, so that an escaped "/" stays inside its segment.
func (s *Server) matchGoogle(u *url.URL) (googleRoute, bool) {
	segs := strings.Split(strings.TrimPrefix(u.EscapedPath(), "/"), "/")
	for i, seg := range segs {
		v, err := url.PathUnescape(seg)
		if err != nil {
			return googleRoute{}, false
		}
		segs[i] = v
	}
	if s.gemini {
		switch {
		case len(segs) == 2 && segs[0] == "v1beta" && segs[1] == "models":
			return googleRoute{ep: epGeminiModels}, true
		case len(segs) == 3 && segs[0] == "v1beta" && segs[1] == "models" && strings.HasSuffix(segs[2], ":predictLongRunning"):
			return googleRoute{ep: epGeminiPredict, model: strings.TrimSuffix(segs[2], ":predictLongRunning")}, true
		case len(segs) == 5 && segs[0] == "v1beta" && segs[1] == "models" && segs[3] == "operations":
			return googleRoute{ep: epGeminiOperation, model: segs[2], id: strings.Join(segs[1:], "/")}, true
		case len(segs) == 3 && segs[0] == "v1beta" && segs[1] == "files" && strings.HasSuffix(segs[2], ":download"):
			return googleRoute{ep: epGeminiFile, id: strings.TrimSuffix(segs[2], ":download")}, true
		}
		return googleRoute{}, false
	}
	if len(segs) == 4 && (segs[0] == "v1beta1" || segs[0] == "v1") && segs[1] == "publishers" && segs[2] == "google" && segs[3] == "models" {
		return googleRoute{ep: epVertexModels}, true
	}
	if len(segs) != 9 || (segs[0] != "v1" && segs[0] != "v1beta1") || segs[1] != "projects" || segs[3] != "locations" ||
		segs[5] != "publishers" || segs[6] != "google" || segs[7] != "models" || segs[2] == "" || segs[4] == "" {
		return googleRoute{}, false
	}
	model, verb, ok := strings.Cut(segs[8], ":")
	if !ok || model == "" {
		return googleRoute{}, false
	}
	r := googleRoute{model: model, resource: strings.Join(append(segs[1:8:8], model), "/")}
	switch verb {
	case "predictLongRunning":
		r.ep = epVertexPredict
	case "fetchPredictOperation":
		r.ep = epVertexFetch
	default:
		return googleRoute{}, false
	}
	return r, true
}

func googleMethod(ep string) string {
	switch ep {
	case epGeminiPredict, epVertexPredict, epVertexFetch:
		return http.MethodPost
	}
	return http.MethodGet
}

// serveGoogle serves a request of a Google dialect, in the order the other
// dialects do: authentication, the rate limit, faults, then the route.
func (s *Server) serveGoogle(w http.ResponseWriter, r *http.Request) {
	route, found := s.matchGoogle(r.URL)
	key := unmatchedEndpoint
	if found {
		key = r.Method + " " + route.ep
	}
	s.countRequest(r, key)
	if !s.admitsHeaders(w, r) {
		return
	}
	ks, ok := s.authenticateGoogle(w, r)
	if !ok {
		return
	}
	if !found {
		writeGoogleError(w, http.StatusNotFound, "NOT_FOUND", fmt.Sprintf("The requested URL %s was not found on this server.", r.URL.Path), "")
		return
	}
	if want := googleMethod(route.ep); r.Method != want {
		w.Header().Set("Allow", want)
		writeGoogleError(w, http.StatusMethodNotAllowed, "INVALID_ARGUMENT", fmt.Sprintf("method %s is not allowed on %s; use %s", r.Method, route.ep, want), "")
		return
	}
	submission := route.ep == epGeminiPredict || route.ep == epVertexPredict
	if !s.admit(w, ks, submission) || s.injectFault(w, route.ep, submission) {
		return
	}
	switch route.ep {
	case epGeminiPredict, epVertexPredict:
		s.handleVeoSubmit(w, r, ks, route)
	case epGeminiOperation:
		s.handleVeoRead(w, r, route.id)
	case epVertexFetch:
		s.handleVertexFetch(w, r, route)
	case epGeminiFile:
		s.handleGeminiFile(w, r, route.id)
	case epGeminiModels, epVertexModels:
		s.handleGoogleModels(w, ks)
	}
}

// authenticateGoogle resolves the credential: the Gemini API's key (header
// x-goog-api-key or query key), or Vertex AI's bearer access token. Each is
// one of Config.Keys. Messages never echo it.
func (s *Server) authenticateGoogle(w http.ResponseWriter, r *http.Request) (*keyState, bool) {
	var cred string
	if s.gemini {
		cred = r.Header.Get("X-Goog-Api-Key")
		if cred == "" {
			cred = r.URL.Query().Get("key")
		}
		if cred == "" {
			writeGoogleError(w, http.StatusForbidden, "PERMISSION_DENIED", "Method doesn't allow unregistered callers "+
				"(callers without established identity). Please use API Key or other form of API consumer identity to call this API.", "")
			return nil, false
		}
	} else {
		scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
			writeGoogleError(w, http.StatusUnauthorized, "UNAUTHENTICATED", "Request is missing required authentication credential. "+
				"Expected OAuth 2 access token, login cookie or other valid authentication credential.", "CREDENTIALS_MISSING")
			return nil, false
		}
		cred = strings.TrimSpace(tok)
	}
	s.mu.Lock()
	ks := s.keys[cred]
	s.mu.Unlock()
	switch {
	case (ks == nil || ks.Revoked) && s.gemini:
		writeGoogleError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", "API_KEY_INVALID")
		return nil, false
	case ks == nil || ks.Revoked:
		writeGoogleError(w, http.StatusUnauthorized, "UNAUTHENTICATED", "Request had invalid authentication credentials. "+
			"Expected OAuth 2 access token, login cookie or other valid authentication credential.", "ACCESS_TOKEN_TYPE_UNSUPPORTED")
		return nil, false
	}
	return ks, true
}

// googleError is Google's error body.
type googleError struct {
	Error googleStatus `json:"error"`
}

// googleStatus is google.rpc.Status as JSON, with the status word Google's
// REST answers add.
type googleStatus struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Status  string          `json:"status,omitempty"`
	Details []googleDetails `json:"details,omitempty"`
}

type googleDetails struct {
	Type   string `json:"@type"`
	Reason string `json:"reason"`
	Domain string `json:"domain"`
}

// writeGoogleError writes Google's error body; reason, when set, is an
// ErrorInfo detail.
func writeGoogleError(w http.ResponseWriter, status int, word, msg, reason string) {
	e := googleStatus{Code: status, Message: msg, Status: word}
	if reason != "" {
		e.Details = []googleDetails{{Type: "type.googleapis.com/google.rpc.ErrorInfo", Reason: reason, Domain: "googleapis.com"}}
	}
	writeJSON(w, status, googleError{Error: e})
}

// googleModel is a model as Google's lists show it: the Gemini API's Model
// and Vertex AI's PublisherModel share the members the mock fills.
type googleModel struct {
	Name                       string   `json:"name"`
	Version                    string   `json:"version,omitempty"`
	VersionID                  string   `json:"versionId,omitempty"`
	DisplayName                string   `json:"displayName,omitempty"`
	SupportedGenerationMethods []string `json:"supportedGenerationMethods,omitempty"`
}

// geminiTextModel is listed beside the video models, as the Gemini API lists
// its text models, so that a client must pick the video models out.
const geminiTextModel = "gemini-2.5-flash"

// handleGoogleModels lists the models the key may use in Google's shapes.
func (s *Server) handleGoogleModels(w http.ResponseWriter, ks *keyState) {
	var list []googleModel
	for _, m := range s.cfg.Models {
		if !ks.allows(m.ID) {
			continue
		}
		if s.gemini {
			list = append(list, googleModel{Name: "models/" + m.ID, Version: "001", DisplayName: m.ID,
				SupportedGenerationMethods: []string{"predictLongRunning"}})
		} else {
			list = append(list, googleModel{Name: "publishers/google/models/" + m.ID, VersionID: "001"})
		}
	}
	if s.gemini {
		list = append(list, googleModel{Name: "models/" + geminiTextModel, Version: "001", DisplayName: geminiTextModel,
			SupportedGenerationMethods: []string{"generateContent", "countTokens"}})
		writeJSON(w, http.StatusOK, map[string]any{"models": list})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"publisherModels": list})
}

// geminiFileID is the file ID of a Gemini operation's clip: the operation's
// name in lower-case hex, the alphabet of Google's file names.
func geminiFileID(name string) string { return hex.EncodeToString([]byte(name)) }

// handleGeminiFile serves an operation's clip behind the key, as the Gemini
// API serves generated files: alt=media is the content, and only a finished
// operation has a file.
func (s *Server) handleGeminiFile(w http.ResponseWriter, r *http.Request, file string) {
	name, err := hex.DecodeString(file)
	now := s.now()
	s.mu.Lock()
	var t *task
	if err == nil {
		t = s.lookup(string(name), now)
	}
	status, gone := "", false
	if t != nil && !t.deleted {
		status, gone = s.observe(t, now), s.clipExpired(t, now)
	}
	s.mu.Unlock()
	if status != statusSucceeded || t.filtered || gone {
		writeGoogleError(w, http.StatusNotFound, "NOT_FOUND", fmt.Sprintf("File files/%s not found.", file), "")
		return
	}
	if r.URL.Query().Get("alt") != "media" {
		writeJSON(w, http.StatusOK, map[string]any{"name": "files/" + file, "mimeType": "video/mp4", "state": "ACTIVE"})
		return
	}
	s.serveClipBody(w, r, t)
}
