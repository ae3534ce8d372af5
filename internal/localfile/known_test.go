package localfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestKnownPlace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "clip.mp4")
	if err := os.WriteFile(p, []byte("the clip"), 0o600); err != nil {
		t.Fatal(err)
	}
	sum, err := SHA256(p)
	if err != nil {
		t.Fatal(err)
	}
	clip := Clip{Task: "task_1", SHA256: sum, Size: int64(len("the clip"))}

	var nothing *Known
	if place, err := nothing.Place(p, "task_1"); err != nil || place.Occupant != RegularFile || place.Predecessor || place.Copy != nil {
		t.Errorf("a nil Known placed %+v, %v; want a file in the way", place, err)
	}
	if place, err := nothing.Place(filepath.Join(dir, "new.mp4"), "task_1"); err != nil || place.Occupant != Nothing {
		t.Errorf("a free path placed %+v, %v; want nothing there", place, err)
	}
	if _, err := nothing.Place(dir, "task_1"); err == nil {
		t.Error("a directory was placed without an error")
	}

	// Known by task only (elsewhere): the file at p is a copy to adopt.
	byTask := &Known{}
	byTask.Remember(filepath.Join(dir, "old.mp4"), clip, true)
	if place, err := byTask.Place(p, "task_1"); err != nil || place.Predecessor || place.Copy == nil || *place.Copy != clip {
		t.Errorf("the clip's copy placed %+v, %v; want it adopted", place, err)
	}
	if place, _ := byTask.Place(p, "task_2"); place.Copy != nil || place.Predecessor {
		t.Errorf("another task's file placed %+v; want it in the way", place)
	}
	if place, _ := byTask.Place(p, ""); place.Copy != nil {
		t.Errorf("an unknown task adopted %+v", place)
	}

	// Known at the path (a refresh, byTask false): the replaced resource's file.
	atPath := &Known{}
	atPath.Remember(p, clip, false)
	if place, _ := atPath.Place(p, "task_1"); !place.Predecessor || place.Copy != nil {
		t.Errorf("the replaced resource's file placed %+v; want it as the predecessor", place)
	}

	// A file that no longer holds the clip is in the way, whatever was known.
	if err := os.WriteFile(p, []byte("edited!!"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, k := range []*Known{byTask, atPath} {
		if place, _ := k.Place(p, "task_1"); place.Copy != nil || place.Predecessor {
			t.Errorf("an edited file placed %+v; want it in the way", place)
		}
	}

	// Nothing is remembered without a task or a checksum.
	none := &Known{}
	none.Remember(p, Clip{SHA256: sum}, true)
	none.Remember(p, Clip{Task: "task_1"}, true)
	if _, ok := load(&none.byTask, "task_1"); ok {
		t.Error("a clip without a checksum was remembered")
	}
}
