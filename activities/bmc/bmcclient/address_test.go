package bmcclient

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"10.1.0.11":                      "https://10.1.0.11",
		"https://10.1.0.11/":             "https://10.1.0.11",
		"http://127.0.0.1:8000/x":        "http://127.0.0.1:8000",
		" https://bmc.example.com:8443 ": "https://bmc.example.com:8443",
	} {
		got, err := BaseURL(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "ftp://x", "https://"} {
		_, err := BaseURL(bad)
		assert.Error(t, err, bad)
	}
}

func TestRedactURL(t *testing.T) {
	assert.Equal(t, "https://10.1.0.11", RedactURL("https://root:pw@10.1.0.11"))
	assert.Equal(t, "<redacted>@10.1.0.11/%zz", RedactURL("http://root:pw@10.1.0.11/%zz"), "not a URL: cut at the @")
}
