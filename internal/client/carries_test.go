package client

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// Every API says of every member of a request either what its request calls it
// or why it cannot carry it, never both: a member declared for one API only
// fails here until every API has a word for it.
func TestEveryAPIDeclaresEveryMember(t *testing.T) {
	t.Parallel()
	params := map[string]bool{}
	for _, c := range carriages {
		for p := range c.sends {
			params[p] = true
		}
		for p := range c.refuses {
			params[p] = true
		}
	}
	for _, a := range APIs {
		c, ok := carriages[a]
		if !ok {
			t.Errorf("%s declares nothing", a)
			continue
		}
		for p := range params {
			_, sends := c.sends[p]
			_, refuses := c.refuses[p]
			if sends == refuses {
				t.Errorf("%s: %s is sent %v and refused %v: say one of the two", a, p, sends, refuses)
			}
		}
	}
}

// Inexpressible refuses exactly what the declaration says an API does not
// carry, with its words, for a request that sets every member once.
func TestInexpressibleRefusesWhatTheDeclarationRefuses(t *testing.T) {
	t.Parallel()
	yes := true
	req := VideoRequest{Model: "m", Prompt: "p", Seconds: "8", StorageURI: "gs://b/clips/", Metadata: &Metadata{
		Ratio: "16:9", Resolution: "720p", GenerateAudio: &yes, CallbackURL: "https://hook.example/",
		Content: []ContentEntry{NewContentEntry(ContentImage, "https://i/1.png"),
			NewContentEntry(ContentVideo, "https://v/1.mp4"), NewContentEntry(ContentAudio, "https://a/1.mp3")},
		Extra: map[string]json.RawMessage{"seed": json.RawMessage("7")},
	}}
	for _, a := range APIs {
		var want []string
		for _, p := range req.members() {
			if why, refused := carriages[a].refuses[p]; refused {
				want = append(want, p+": "+why)
			} else if _, sent := carriages[a].sends[p]; !sent && strings.HasPrefix(p, ParamExtra+".") {
				if why, refused := carriages[a].refuses[ParamExtra]; refused {
					want = append(want, p+": "+why)
				}
			}
		}
		var got []string
		for _, e := range a.Inexpressible(req) {
			got = append(got, e.Param+": "+e.Reason)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s refuses\n%s\nwant\n%s", a, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// The members of Veo's parameters that a typed member of the request becomes
// are the ones a vendor parameter may not set.
func TestVeoTypedParametersAreTheDeclaredOnes(t *testing.T) {
	t.Parallel()
	for _, a := range GoogleAPIs {
		for p, m := range carriages[a].sends {
			if k, ok := strings.CutPrefix(m, "parameters."); ok && p != ParamExtra && !slices.Contains(veoTypedParameters, k) {
				t.Errorf("%s sends %s as %s, which veoTypedParameters lacks", a, p, m)
			}
		}
	}
}
