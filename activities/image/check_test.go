package image

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var content = []byte(strings.Repeat("rackroll installer 4.2.0\n", 1000))

// server serves content at /ok.iso, refuses HEAD at /nohead.iso, and 404s
// the rest.
func server(t *testing.T) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/nohead.iso" && r.Method == http.MethodHead:
			w.WriteHeader(http.StatusMethodNotAllowed)
		case r.URL.Path == "/ok.iso" || r.URL.Path == "/nohead.iso":
			http.ServeContent(w, r, "image.iso", time.Time{}, strings.NewReader(string(content)))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func TestCheckImageAnswers(t *testing.T) {
	s := server(t)
	a := &Activities{}
	sum := sha256.Sum256(content)
	good := hex.EncodeToString(sum[:])
	for _, tc := range []struct {
		name, url, sha string
		ok             bool
		answer         string
	}{
		{"found", s.URL + "/ok.iso", "", true, "200 OK, 25000 bytes"},
		{"missing", s.URL + "/4.2.0.iso", "", false, "404 Not Found"},
		{"HEAD refused: a ranged GET", s.URL + "/nohead.iso", "", true, "206 Partial Content"},
		{"checksum matches", s.URL + "/ok.iso", good, true, "200 OK"},
		{"checksum differs", s.URL + "/ok.iso", strings.Repeat("0", 64), false, "its sha256 is " + good + ", the inventory says " + strings.Repeat("0", 64)},
		{"nfs: not asked", "nfs://images/4.2.0.iso", "", true, "not checked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := a.CheckImage(context.Background(), CheckInput{URL: tc.url, SHA256: tc.sha})
			require.NoError(t, err)
			require.Equal(t, tc.ok, c.OK, c.Answer)
			require.Contains(t, c.Answer, tc.answer)
			require.Equal(t, tc.url, c.URL)
			if tc.ok {
				require.Empty(t, c.Refusal())
			} else {
				require.Contains(t, c.Refusal(), tc.url)
				require.Contains(t, c.Refusal(), "no server was touched")
			}
		})
	}
}

// Nothing listening is an error (retried by the workflow), not an answer.
func TestCheckImageNobodyThere(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	l.Close()
	_, err = (&Activities{}).CheckImage(context.Background(), CheckInput{URL: "http://" + addr + "/4.2.0.iso"})
	require.ErrorContains(t, err, "connection refused")
}
