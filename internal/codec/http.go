package codec

import (
	"net/http"

	"go.temporal.io/sdk/converter"
)

// Handler serves the codec-server protocol (POST …/encode and …/decode with
// JSON Payloads) that the Temporal UI and CLI call to show payloads in
// clear. corsOrigin, when set, is the one browser origin allowed to call it
// (the UI's URL): the UI calls the codec server from the browser, so without
// CORS headers the browser drops the answers.
func Handler(c *Codec, corsOrigin string) http.Handler {
	inner := converter.NewPayloadCodecHTTPHandler(c)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if corsOrigin != "" && r.Header.Get("Origin") == corsOrigin {
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", corsOrigin)
			h.Set("Access-Control-Allow-Credentials", "true")
			h.Set("Access-Control-Allow-Methods", "POST, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Content-Type, X-Namespace, Authorization")
			h.Add("Vary", "Origin")
		}
		if r.Method == http.MethodOptions {
			w.WriteHeader(http.StatusOK)
			return
		}
		inner.ServeHTTP(w, r)
	})
}
