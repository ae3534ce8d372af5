package journal

import "testing"

func TestFingerprintTellsRequestsApart(t *testing.T) {
	type request struct {
		Prompt string `json:"prompt"`
	}
	base := Fingerprint("https://a/v1", request{"a cat"}, map[string]string{"rev": "1"})
	if base != Fingerprint("https://a/v1", request{"a cat"}, map[string]string{"rev": "1"}) {
		t.Fatal("equal requests have different fingerprints")
	}
	for name, fp := range map[string]string{
		"request":  Fingerprint("https://a/v1", request{"a dog"}, map[string]string{"rev": "1"}),
		"triggers": Fingerprint("https://a/v1", request{"a cat"}, map[string]string{"rev": "2"}),
		"service":  Fingerprint("https://b/v1", request{"a cat"}, map[string]string{"rev": "1"}),
	} {
		if fp == base {
			t.Errorf("a different %s has the same fingerprint", name)
		}
	}
	// Journals written before Fingerprint moved here hold entries under this
	// form: sha256 of {"service":...,"request":...,"triggers_replace":...}.
	const older = "e8d23459b3ee9aca3475677af35ac5bb5c4b1c6e05e38bf881c3ddc5b531ceeb"
	if base != older {
		t.Errorf("the fingerprint's form changed: %s, journals hold %s", base, older)
	}
}
