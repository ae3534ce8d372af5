// Package privatestate reads and writes the keys a resource keeps in Terraform's
// private state, each key typed by what it holds, so that a key is written and
// read back the same way wherever it is used.
package privatestate

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// Getter is private state as requests and responses carry it.
type Getter interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

// Setter is private state as responses carry it. Setting a key to nil removes it.
type Setter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// Flag is a key that is either set (to true) or absent.
type Flag string

// Get reports whether the flag is set; a key that cannot be read is not.
func (k Flag) Get(ctx context.Context, p Getter) bool {
	v, diags := p.GetKey(ctx, string(k))
	return !diags.HasError() && string(v) == "true"
}

// Set sets the flag, or removes it when on is false.
func (k Flag) Set(ctx context.Context, p Setter, on bool) diag.Diagnostics {
	if !on {
		return p.SetKey(ctx, string(k), nil)
	}
	return p.SetKey(ctx, string(k), []byte(`true`))
}

// String is a key that holds a string, as JSON.
type String string

// Get reads the string: "" when the key is absent or holds something else.
func (k String) Get(ctx context.Context, p Getter) (string, diag.Diagnostics) {
	raw, diags := p.GetKey(ctx, string(k))
	var s string
	if len(raw) > 0 && json.Unmarshal(raw, &s) != nil {
		s = ""
	}
	return s, diags
}

// Set stores s, or removes the key when s is empty.
func (k String) Set(ctx context.Context, p Setter, s string) diag.Diagnostics {
	if s == "" {
		return p.SetKey(ctx, string(k), nil)
	}
	v, _ := json.Marshal(s) //nolint:errchkjson // a string always marshals
	return p.SetKey(ctx, string(k), v)
}
