package mockapi

import (
	"crypto/subtle"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// admitsHeaders plays a header-based gateway in front of the service
// (Config.RequiredHeaders): an API request without every required header, with
// its exact value, is answered 403 before the key is even looked at, as such a
// gateway does. The answer names the header, never its value.
func (s *Server) admitsHeaders(w http.ResponseWriter, r *http.Request) bool {
	names := make([]string, 0, len(s.cfg.RequiredHeaders))
	for name := range s.cfg.RequiredHeaders {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		got := r.Header.Get(name)
		if subtle.ConstantTimeCompare([]byte(got), []byte(s.cfg.RequiredHeaders[name])) == 1 {
			continue
		}
		what := "without"
		if got != "" {
			what = "with a wrong value of"
		}
		writeError(w, http.StatusForbidden, "gateway_error", "",
			fmt.Sprintf("the gateway refuses a request %s the header %s", what, http.CanonicalHeaderKey(strings.TrimSpace(name))))
		return false
	}
	return true
}
