package mockapi

import "net/http"

type modelList struct {
	Object string        `json:"object"`
	Data   []modelObject `json:"data"`
}

type modelObject struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

// handleModels lists only the models the key may use: the list is how a
// client checks, before submitting, which models its key may use.
func (s *Server) handleModels(w http.ResponseWriter, ks *keyState) {
	if s.newAPI {
		s.handleNewAPIModels(w, ks)
		return
	}
	out := modelList{Object: "list", Data: []modelObject{}}
	for _, m := range s.cfg.Models {
		if ks.allows(m.ID) {
			out.Data = append(out.Data, modelObject{ID: m.ID, Object: "model", Created: m.Created, OwnedBy: m.OwnedBy})
		}
	}
	writeJSON(w, http.StatusOK, out)
}
