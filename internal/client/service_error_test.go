package client

import (
	"encoding/json"
	"testing"
)

func TestServiceErrorText(t *testing.T) {
	t.Parallel()
	tests := []struct{ body, want string }{
		{`{"message":"m","type":"t","code":"c"}`, "m (t, c)"},
		{`{"message":"m","type":"c","code":"c"}`, "m (c)"},
		{`{"message":"m","code":429}`, "m (429)"},
		{`{"message":"","type":"t","code":"c"}`, "t, c"},
		{`{"message":"m about c","code":"c"}`, "m about c"},
		{`{"message":{"detail":"x"},"code":null}`, `{"detail":"x"}`},
		{`{}`, ""},
	}
	for _, tt := range tests {
		e, ok := readServiceError(json.RawMessage(tt.body))
		if !ok || e.text() != tt.want {
			t.Errorf("%s: text() = %q (%v), want %q", tt.body, e.text(), ok, tt.want)
		}
	}
	for _, notObject := range []string{`"a string"`, `null`, ``, `[1]`} {
		if _, ok := readServiceError(json.RawMessage(notObject)); ok {
			t.Errorf("%q read as an error object", notObject)
		}
	}
}
