package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/rackroll/rackroll/internal/temporalconn"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/encoding/protojson"
)

func TestCodecServerNeedsTheKey(t *testing.T) {
	t.Setenv("RACKROLL_CODEC_KEY_FILE", "")
	_, _, err := run(t, "codec-server")
	require.ErrorContains(t, err, "--codec-key-file")

	out, _, err := run(t, "codec-server", "--help")
	require.NoError(t, err)
	require.Contains(t, out, "--cors-origin")
	require.Contains(t, out, "--listen")
}

// What a worker encrypts with the key file, the codec server given the same
// file decrypts for the UI.
func TestCodecServerDecryptsWorkerPayloads(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	key := make([]byte, 32)
	_, err := rand.Read(key)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "codec.key")
	require.NoError(t, os.WriteFile(path, []byte(hex.EncodeToString(key)+"\n"), 0o600))

	worker := temporalconn.Flags{CodecKeyFile: path}
	opts, err := worker.ClientOptions()
	require.NoError(t, err)
	p, err := opts.DataConverter.ToPayload("rack1-c1")
	require.NoError(t, err)
	require.False(t, bytes.Contains(p.Data, []byte("rack1-c1")))

	a := &app{}
	a.conn.CodecKeyFile = path
	h, err := a.codecHandler("http://127.0.0.1:8233")
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()
	body, err := protojson.Marshal(&commonpb.Payloads{Payloads: []*commonpb.Payload{p}})
	require.NoError(t, err)
	res, err := http.Post(srv.URL+"/decode", "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode, string(b))
	var got commonpb.Payloads
	require.NoError(t, protojson.Unmarshal(b, &got))
	require.Len(t, got.Payloads, 1)
	var s string
	require.NoError(t, converter.GetDefaultDataConverter().FromPayload(got.Payloads[0], &s))
	require.Equal(t, "rack1-c1", s)
}
