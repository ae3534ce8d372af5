package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Fingerprint identifies what a task was asked for: the service address, the
// request as it is sent (any value that marshals to JSON), and the resource's
// triggers. Two resources with equal fingerprints ask for interchangeable clips,
// so an entry is found again only by a request that means the same. The JSON
// form is what older journals hold: changing it would orphan their entries.
func Fingerprint(service string, request any, triggers map[string]string) string {
	data, _ := json.Marshal(struct { //nolint:errchkjson // strings, a map of strings and the caller's marshalable request
		Service  string            `json:"service"`
		Request  any               `json:"request"`
		Triggers map[string]string `json:"triggers_replace,omitempty"`
	}{service, request, triggers})
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
