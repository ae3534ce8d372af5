package client

import "github.com/videogen/terraform-provider-videogen/internal/signedurl"

// Unsigned is a copy of md whose reference URLs are without their store's signing
// parameters (signedurl.Unsigned); md itself is left as it is. A nil md, or one
// without reference media, is returned as it is.
func (md *Metadata) Unsigned() *Metadata {
	if md == nil || len(md.Content) == 0 {
		return md
	}
	unsigned := *md
	unsigned.Content = make([]ContentEntry, len(md.Content))
	for i, e := range md.Content {
		for _, u := range []**MediaURL{&e.ImageURL, &e.VideoURL, &e.AudioURL} {
			if *u != nil {
				m := **u
				m.URL = signedurl.Unsigned(m.URL)
				*u = &m
			}
		}
		unsigned.Content[i] = e
	}
	return &unsigned
}
