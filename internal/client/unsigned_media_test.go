package client

import (
	"reflect"
	"testing"
)

func TestMetadataUnsigned(t *testing.T) {
	t.Parallel()
	const signed = "https://bucket.s3.amazonaws.com/cat.png?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=k&" +
		"X-Amz-Date=20260101T000000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Signature=abc&versionId=2"
	md := &Metadata{Ratio: "16:9", Content: []ContentEntry{
		NewContentEntry(ContentImage, signed),
		NewContentEntry(ContentVideo, "https://cdn.example.com/clip.mp4?token=keep"),
	}}
	before := *md
	before.Content = append([]ContentEntry(nil), md.Content...)
	got := md.Unsigned()
	if want := "https://bucket.s3.amazonaws.com/cat.png?versionId=2"; got.Content[0].MediaURL() != want {
		t.Errorf("image = %q, want %q", got.Content[0].MediaURL(), want)
	}
	if got.Content[1].MediaURL() != "https://cdn.example.com/clip.mp4?token=keep" || got.Ratio != "16:9" {
		t.Errorf("Unsigned changed what is not a signature: %+v", got)
	}
	if !reflect.DeepEqual(*md, before) || md.Content[0].ImageURL.URL != signed {
		t.Error("Unsigned changed the metadata it copied")
	}
	if (*Metadata)(nil).Unsigned() != nil {
		t.Error("nil metadata did not stay nil")
	}
}
