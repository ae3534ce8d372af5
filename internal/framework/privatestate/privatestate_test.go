package privatestate

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// store is private state as the framework keeps it: a key set to nil or to
// nothing is gone.
type store map[string][]byte

func (s store) GetKey(_ context.Context, key string) ([]byte, diag.Diagnostics) { return s[key], nil }

func (s store) SetKey(_ context.Context, key string, value []byte) diag.Diagnostics {
	if len(value) == 0 {
		delete(s, key)
		return nil
	}
	s[key] = value
	return nil
}

func TestFlag(t *testing.T) {
	t.Parallel()
	ctx, s, k := context.Background(), store{}, Flag("resumes")
	if k.Get(ctx, s) {
		t.Fatal("an absent flag reads as set")
	}
	k.Set(ctx, s, true)
	if !k.Get(ctx, s) || string(s["resumes"]) != "true" {
		t.Fatalf("a set flag reads as unset, or is stored as %q", s["resumes"])
	}
	k.Set(ctx, s, false)
	if _, ok := s["resumes"]; ok || k.Get(ctx, s) {
		t.Fatal("an unset flag is still there")
	}
	s["resumes"] = []byte(`"true"`)
	if k.Get(ctx, s) {
		t.Fatal("a key that holds something else reads as a set flag")
	}
}

func TestString(t *testing.T) {
	t.Parallel()
	ctx, s, k := context.Background(), store{}, String("api")
	if v, _ := k.Get(ctx, s); v != "" {
		t.Fatalf("an absent key reads %q", v)
	}
	k.Set(ctx, s, `openai-videos "quoted"`)
	if v, _ := k.Get(ctx, s); v != `openai-videos "quoted"` {
		t.Fatalf("read back %q (stored %s)", v, s["api"])
	}
	k.Set(ctx, s, "")
	if _, ok := s["api"]; ok {
		t.Fatal("an empty string left the key in place")
	}
	s["api"] = []byte(`true`)
	if v, _ := k.Get(ctx, s); v != "" {
		t.Fatalf("a key that holds no string reads %q", v)
	}
}
