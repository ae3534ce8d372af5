package acctest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// VertexAccessToken is the access token the tests' Application Default
// Credentials hand out; every mock of the vertex dialect that NewMock starts
// accepts it, as Vertex AI accepts a Google account's token.
const VertexAccessToken = "ya29.acctest-vertex-access-token" //nolint:gosec // a token of the tests' own token server, good for the mock only

// VertexProject and VertexLocation are what ProviderBlock configures for the
// vertex API.
const (
	VertexProject  = "videogen-acctest"
	VertexLocation = "us-central1"
)

// googleADC is this process's Application Default Credentials for tests: a
// service account key file (GOOGLE_APPLICATION_CREDENTIALS) whose token_uri
// is a token server on loopback, so that the provider finds credentials as it
// would on a machine with a service account, through golang.org/x/oauth2/google,
// and no Google account is needed or reached. It lives as long as the process,
// which every provider of it shares.
var googleADC struct {
	once   sync.Once
	file   string
	err    error
	issued atomic.Int64
}

// VertexTokensIssued counts the access tokens the tests' token server issued.
func VertexTokensIssued() int64 { return googleADC.issued.Load() }

// useGoogleADC points GOOGLE_APPLICATION_CREDENTIALS at the tests' key file,
// starting its token server on first use.
func useGoogleADC() error {
	googleADC.once.Do(func() {
		googleADC.file, googleADC.err = startGoogleADC()
		if googleADC.err == nil {
			googleADC.err = os.Setenv("GOOGLE_APPLICATION_CREDENTIALS", googleADC.file)
		}
	})
	return googleADC.err
}

func startGoogleADC() (string, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", err
	}
	ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A JWT-bearer grant, as a service account's credentials ask for
		// a token; its signature is not checked: the key is the test's.
		if r.Method != http.MethodPost || r.ParseForm() != nil || r.PostForm.Get("assertion") == "" {
			http.Error(w, `{"error":"invalid_request"}`, http.StatusBadRequest)
			return
		}
		googleADC.issued.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": VertexAccessToken, "token_type": "Bearer", "expires_in": 3600})
	})}
	go func() { _ = srv.Serve(ln) }() // for the life of the test process
	dir, err := os.MkdirTemp("", "videogen-acctest-adc")
	if err != nil {
		return "", err
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return "", err
	}
	file := map[string]string{
		"type":           "service_account",
		"project_id":     VertexProject,
		"private_key_id": "acctest",
		"private_key":    string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email":   "acctest@" + VertexProject + ".iam.gserviceaccount.com",
		"client_id":      "1",
		"token_uri":      fmt.Sprintf("http://%s/token", ln.Addr()),
	}
	data, err := json.Marshal(file)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "application_default_credentials.json")
	return path, os.WriteFile(path, data, 0o600)
}
