package lab

import (
	"bytes"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
)

// The lab's image server: what a site's HTTP server of installer images is
// to its BMCs. It serves /rackroll-<version>.iso for every version but
// those the lab section (missingImages) or the test (SetImageMissing) took
// away, answers HEAD and ranged GETs as a web server does, and logs every
// request (image-request) so the checker can see that an upgrade asked for
// its image before it disrupted anything. A BMC told to mount a missing
// image accepts and never mounts, as BMCs do when their fetch fails.
//
// With redirect (lab section redirectImages) it stands behind a redirect,
// as a site's image URL often does (a mirror, a CDN, an artifact store):
// every installer URL answers 302 to the same file on the mirror, a second
// listener (another host:port) that serves the images. BMCs follow it; the
// shape-redirect profile then shows the URL it was led to.

var isoPath = regexp.MustCompile(`^/rackroll-([0-9A-Za-z][0-9A-Za-z.+_~-]*)\.iso$`)

// fwPath is a firmware package the image server also serves, for BMCs
// that fetch (SimpleUpdate) and workers that push: its name says what it
// installs (internal/lab/redfish firmware_update.go).
var fwPath = regexp.MustCompile(`^/firmware/(?:[A-Za-z0-9._-]+/)*(?i:bios|bmc|nic|storage)-[0-9][0-9A-Za-z._-]*\.[A-Za-z0-9]+$`)

type imageServer struct {
	url, mirror string
	redirect    bool
	srv, msrv   *http.Server
	events      events.Sink

	mu      sync.Mutex
	missing map[string]bool
}

func startImageServer(sink events.Sink, missing []string, redirect bool) (*imageServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	mln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ln.Close()
		return nil, err
	}
	s := &imageServer{url: "http://" + ln.Addr().String(), mirror: "http://" + mln.Addr().String(), redirect: redirect,
		events: sink, missing: map[string]bool{}}
	for _, v := range missing {
		s.missing[v] = true
	}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	s.msrv = &http.Server{Handler: http.HandlerFunc(s.serveMirror), ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	go s.msrv.Serve(mln)
	return s, nil
}

func (s *imageServer) close() {
	s.srv.Close()
	s.msrv.Close()
}

// serve answers the site's image URL: a redirect to the mirror when the
// lab says so, else the image.
func (s *imageServer) serve(w http.ResponseWriter, r *http.Request) {
	if s.redirect && isoPath.MatchString(r.URL.Path) {
		s.events.Emit(events.ImageRequest, "", "", map[string]any{"method": r.Method, "path": r.URL.Path, "status": http.StatusFound})
		http.Redirect(w, r, s.mirror+r.URL.Path, http.StatusFound)
		return
	}
	s.serveMirror(w, r)
}

// finalURL is where a fetch of image ends: on the mirror when the image
// server redirects, else image itself.
func (s *imageServer) finalURL(image string) string {
	if rest, ok := strings.CutPrefix(image, s.url); ok && s.redirect && isoPath.MatchString(rest) {
		return s.mirror + rest
	}
	return image
}

// ImageContent is the bytes the lab serves as the installer of version:
// deterministic, so a test can give the inventory their checksum.
func ImageContent(version string) []byte {
	return bytes.Repeat([]byte("rackroll installer "+version+"\n"), 4096)
}

func (s *imageServer) serveMirror(w http.ResponseWriter, r *http.Request) {
	status := http.StatusOK
	defer func() {
		s.events.Emit(events.ImageRequest, "", "", map[string]any{"method": r.Method, "path": r.URL.Path, "status": status})
	}()
	if fwPath.MatchString(r.URL.Path) && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		http.ServeContent(w, r, strings.TrimPrefix(r.URL.Path, "/"), time.Time{}, bytes.NewReader(FirmwareContent(r.URL.Path)))
		return
	}
	m := isoPath.FindStringSubmatch(r.URL.Path)
	if m == nil || s.isMissing(m[1]) || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		status = http.StatusNotFound
		http.NotFound(w, r)
		return
	}
	if r.Header.Get("Range") != "" {
		status = http.StatusPartialContent
	}
	http.ServeContent(w, r, strings.TrimPrefix(r.URL.Path, "/"), time.Time{}, bytes.NewReader(ImageContent(m[1])))
}

func (s *imageServer) isMissing(version string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.missing[version]
}

// fetchable says whether a BMC can fetch image: images elsewhere are
// taken as fetchable (the lab's older templates name hosts nobody serves).
func (s *imageServer) fetchable(image string) bool {
	image = s.finalURL(image)
	rest, ok := strings.CutPrefix(image, s.url)
	if !ok {
		if rest, ok = strings.CutPrefix(image, s.mirror); !ok {
			return true
		}
	}
	if fwPath.MatchString(rest) {
		return true
	}
	m := isoPath.FindStringSubmatch(rest)
	return m != nil && !s.isMissing(m[1])
}

// FirmwareContent is the bytes the lab serves as the firmware package at
// path: deterministic and small.
func FirmwareContent(path string) []byte {
	return bytes.Repeat([]byte("rackroll lab firmware "+path+"\n"), 64)
}

// FirmwareURL is the lab's URL of a firmware package: name is
// <kind>-<version>.<ext> (bios-1.14.0.exe).
func (l *Lab) FirmwareURL(name string) string { return l.images.url + "/firmware/" + name }

// SetImageMissing takes version's image away from the image server (or
// puts it back).
func (l *Lab) SetImageMissing(version string, missing bool) {
	l.images.mu.Lock()
	defer l.images.mu.Unlock()
	if missing {
		l.images.missing[version] = true
	} else {
		delete(l.images.missing, version)
	}
}

// ImagesURL is the image server's base URL.
func (l *Lab) ImagesURL() string { return l.images.url }
