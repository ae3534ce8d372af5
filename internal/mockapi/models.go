package mockapi

import (
	"encoding/json"
	"maps"
	"net/http"
	"strconv"
)

type modelList struct {
	Object string                       `json:"object"`
	Data   []map[string]json.RawMessage `json:"data"`
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
	out := modelList{Object: "list", Data: []map[string]json.RawMessage{}}
	for _, m := range s.cfg.Models {
		if !ks.allows(m.ID) {
			continue
		}
		record := maps.Clone(m.Record)
		if record == nil {
			record = map[string]json.RawMessage{}
		}
		base, err := json.Marshal(modelObject{ID: m.ID, Object: "model", Created: m.Created, OwnedBy: m.OwnedBy})
		if err != nil {
			panic(err) // a struct of strings and numbers always marshals
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(base, &fields); err != nil {
			panic(err)
		}
		if s.cfg.PublishPrices {
			record["price_per_second"] = json.RawMessage(strconv.FormatInt(s.cfg.PricePerSecond, 10))
			record["default_seconds"] = json.RawMessage(strconv.Itoa(m.DefaultSeconds))
			record["currency"] = json.RawMessage(`"credits"`)
		}
		maps.Copy(record, fields)
		out.Data = append(out.Data, record)
	}
	writeJSON(w, http.StatusOK, out)
}
