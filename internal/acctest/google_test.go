package acctest

import (
	"testing"

	"github.com/videogen/terraform-provider-videogen/internal/client"
)

// The tests' Application Default Credentials work through the same code the
// provider uses to find them (golang.org/x/oauth2/google): a service account
// key file whose token server is on loopback hands out VertexAccessToken.
func TestGoogleADCHandsOutTheMockToken(t *testing.T) {
	if err := useGoogleADC(); err != nil {
		t.Fatal(err)
	}
	creds, err := client.GoogleDefaultCredentials(t.Context())
	if err != nil {
		t.Fatalf("GoogleDefaultCredentials: %v", err)
	}
	tok, err := creds.Tokens.Token()
	if err != nil {
		t.Fatalf("Token: %v", err)
	}
	if tok.AccessToken != VertexAccessToken || creds.ProjectID != VertexProject || VertexTokensIssued() < 1 {
		t.Errorf("token %q for project %q (%d issued), want %q for %q", tok.AccessToken, creds.ProjectID,
			VertexTokensIssued(), VertexAccessToken, VertexProject)
	}
}
