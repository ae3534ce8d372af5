package mockapi

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// vertexStores reports whether the vertex dialect must write t's clip to
// Config.CloudStorage before the operation may say it is done: Vertex AI
// answers done only once the clip is in the bucket. Callers hold s.mu.
func (s *Server) vertexStores(t *task, status string) bool {
	return s.vertex && s.cfg.CloudStorage != "" && t.storageURI != "" && !t.stored && !t.filtered &&
		status == statusSucceeded
}

// storeVertexClip writes t's clip where its operation says it is
// (VertexClipURI), through the Cloud Storage JSON API's simple upload, as
// Vertex AI writes it with its own service account: the provider's
// credentials play no part. It holds no lock while it writes.
func (s *Server) storeVertexClip(ctx context.Context, t *task) error {
	bucket, object, ok := strings.Cut(strings.TrimPrefix(VertexClipURI(t.storageURI, t.id), "gs://"), "/")
	if !ok || bucket == "" || object == "" {
		return fmt.Errorf("storageUri %s names no bucket", t.storageURI)
	}
	clip, _ := s.clipBytes(t)
	u := strings.TrimSuffix(s.cfg.CloudStorage, "/") + "/upload/storage/v1/b/" + url.PathEscape(bucket) +
		"/o?uploadType=media&name=" + url.QueryEscape(object)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(clip))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "video/mp4")
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("writing gs://%s/%s: %s: %s", bucket, object, resp.Status, bytes.TrimSpace(msg))
	}
	s.mu.Lock()
	t.stored = true
	s.notify()
	s.mu.Unlock()
	return nil
}
