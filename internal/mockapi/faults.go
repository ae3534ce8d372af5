package mockapi

import (
	"context"
	"fmt"
	"net"
	"net/http"
)

// RefusedURL returns a base URL on loopback whose port nothing listens on, so
// that every connection to it is refused: the service down, or a base_url that
// points where nothing runs. No Server can stand for that, since a Server answers.
// It prefers 127.0.0.2, where no httptest server (always on 127.0.0.1) can pick up
// the freed port while a test still dials it.
func RefusedURL(ctx context.Context) (string, error) {
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", "127.0.0.2:0")
	if err != nil {
		l, err = lc.Listen(ctx, "tcp", "127.0.0.1:0")
	}
	if err != nil {
		return "", err
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		return "", err
	}
	return "http://" + addr, nil
}

var faultStatuses = [...]int{http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable}

// injectFault answers the request with a simulated upstream failure with
// probability FaultRate and reports whether it did. Half of the faults carry
// an HTML body, as a real gateway in front of the API would send, so clients
// are tested against error bodies they can't decode.
//
// A submission only ever gets the service's own errors (500 or 503 with its
// JSON body): these faults happen before any effect, and a gateway's page in
// front of a submission tells a client that the service may have acted, which
// is the separate GatewayFailuresAfterSubmit fault.
func (s *Server) injectFault(w http.ResponseWriter, ep string, submission bool) bool {
	if s.cfg.FaultRate == 0 {
		return false
	}
	s.mu.Lock()
	hit := s.faultRNG.Float64() < s.cfg.FaultRate
	var status int
	var html bool
	if hit {
		status = faultStatuses[s.faultRNG.IntN(len(faultStatuses))]
		html = s.faultRNG.IntN(2) == 0
	}
	s.mu.Unlock()
	if !hit {
		return false
	}
	if submission {
		html = false
		if status == http.StatusBadGateway {
			status = http.StatusInternalServerError
		}
	}
	if html {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(status)
		fmt.Fprintf(w, "<html><body><h1>%d %s</h1></body></html>\n", status, http.StatusText(status))
		return true
	}
	msg := fmt.Sprintf("the server had an error processing your request (simulated %d %s); retry with exponential back-off",
		status, http.StatusText(status))
	if s.newAPI {
		s.writeNewAPIFault(w, ep, status, msg)
		return true
	}
	if s.google() {
		word := "INTERNAL"
		if status == http.StatusServiceUnavailable {
			word = "UNAVAILABLE"
		}
		writeGoogleError(w, status, word, msg, "")
		return true
	}
	writeError(w, status, "server_error", "", msg)
	return true
}

// gatewayTimeoutPage is what a reverse proxy in front of the service sends
// when it gives up waiting for the answer: HTML, not the API's JSON.
const gatewayTimeoutPage = `<html>
<head><title>504 Gateway Time-out</title></head>
<body>
<center><h1>504 Gateway Time-out</h1></center>
</body>
</html>
`

// writeGatewayTimeout answers a submission whose task was already created,
// the "acted, then failed" fault: a client cannot tell from this answer
// whether a task exists, and a blind retry creates another one.
func writeGatewayTimeout(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(http.StatusGatewayTimeout)
	fmt.Fprint(w, gatewayTimeoutPage)
}
