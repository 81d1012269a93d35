package codec

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/encoding/protojson"
)

// The codec server as the UI uses it: a CORS preflight, then /decode.
func TestHandlerDecodesForTheUI(t *testing.T) {
	c := newCodec(t, newKey(t))
	const ui = "http://127.0.0.1:8233"
	srv := httptest.NewServer(Handler(c, ui))
	defer srv.Close()

	pre, err := http.NewRequest(http.MethodOptions, srv.URL+"/decode", nil)
	require.NoError(t, err)
	pre.Header.Set("Origin", ui)
	res, err := http.DefaultClient.Do(pre)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, ui, res.Header.Get("Access-Control-Allow-Origin"))
	require.Contains(t, res.Header.Get("Access-Control-Allow-Headers"), "X-Namespace")

	enc, err := c.Encode([]*commonpb.Payload{plainPayload(t, "rack1-c1")})
	require.NoError(t, err)
	body, err := protojson.Marshal(&commonpb.Payloads{Payloads: enc})
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/decode", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Origin", ui)
	req.Header.Set("Content-Type", "application/json")
	res, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, ui, res.Header.Get("Access-Control-Allow-Origin"))
	var buf bytes.Buffer
	_, err = buf.ReadFrom(res.Body)
	require.NoError(t, err)
	var out commonpb.Payloads
	require.NoError(t, protojson.Unmarshal(buf.Bytes(), &out))
	require.Len(t, out.Payloads, 1)
	var s string
	require.NoError(t, converter.GetDefaultDataConverter().FromPayload(out.Payloads[0], &s))
	require.Equal(t, "rack1-c1", s)
}

// Another origin gets no CORS grant, so a browser on another site cannot
// read decrypted payloads through the user's loopback codec server.
func TestHandlerNoCORSForOtherOrigins(t *testing.T) {
	srv := httptest.NewServer(Handler(newCodec(t, newKey(t)), "http://127.0.0.1:8233"))
	defer srv.Close()
	req, err := http.NewRequest(http.MethodOptions, srv.URL+"/decode", nil)
	require.NoError(t, err)
	req.Header.Set("Origin", "http://evil.example")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Empty(t, res.Header.Get("Access-Control-Allow-Origin"))
}

func TestHandlerRefusesForeignKey(t *testing.T) {
	other := newCodec(t, newKey(t))
	enc, err := other.Encode([]*commonpb.Payload{plainPayload(t, "x")})
	require.NoError(t, err)
	body, err := protojson.Marshal(&commonpb.Payloads{Payloads: enc})
	require.NoError(t, err)
	rec := httptest.NewRecorder()
	Handler(newCodec(t, newKey(t)), "").ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/decode", bytes.NewReader(body)))
	require.Equal(t, http.StatusBadRequest, rec.Code)
	require.Contains(t, rec.Body.String(), other.KeyID())
}
