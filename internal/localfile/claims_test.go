package localfile

import (
	"path/filepath"
	"testing"
)

func TestClaims(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "out", "clip.mp4")
	other := filepath.Join(dir, "out", "..", "out", "clip.mp4") // the same file, spelled otherwise
	var cs Claims
	if _, _, clash := cs.Claim(Claim{Path: p, Owner: "task_1"}); clash {
		t.Fatal("a first claim clashed")
	}
	if _, _, clash := cs.Claim(Claim{Path: other, Owner: "task_1"}); clash {
		t.Error("a second claim by the same known owner clashed")
	}
	file, first, clash := cs.Claim(Claim{Path: other, Owner: "task_2"})
	if !clash || first.Path != p || first.Owner != "task_1" || file != p {
		t.Errorf("another owner's claim of the same file gave %q, %+v, %v; want a clash with the first", file, first, clash)
	}
	if _, _, clash := cs.Claim(Claim{Path: other}); !clash {
		t.Error("an unknown owner's claim of a claimed file did not clash")
	}
	var unknown Claims
	unknown.Claim(Claim{Path: p})
	if _, _, clash := unknown.Claim(Claim{Path: p}); !clash {
		t.Error("two unknown owners of one file were taken for one writer")
	}
	if _, _, clash := cs.Claim(Claim{Path: filepath.Join(dir, "other.mp4"), Owner: "task_2"}); clash {
		t.Error("a claim of another file clashed")
	}
}
