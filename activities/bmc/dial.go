package bmc

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/stmcginnis/gofish"
	"github.com/stmcginnis/gofish/schemas"
)

// logoutTimeout bounds the DELETE of a session on the way out: the
// activity's own context may already be cancelled.
const logoutTimeout = 10 * time.Second

// DialGofish connects with gofish. Where the service root links a
// SessionService it logs in (one Redfish session per activity attempt,
// deleted by Close); basic auth only where it does not (BMCs allow few
// sessions, iLO logs every basic-auth login, iDRAC10 firmware ships with
// basic auth unadvertised). A worker that dies mid-attempt cannot log out:
// its session expires on the BMC after the SessionService's SessionTimeout,
// and the retried attempt opens its own. TLS is verified against
// Endpoint.CAFile (or the system roots) unless the endpoint says otherwise.
func DialGofish(ctx context.Context, ep Endpoint, creds Credentials, timeout time.Duration) (Client, error) {
	base, err := baseURL(ep.Address)
	if err != nil {
		return nil, &failure{kindConfig, err.Error()}
	}
	tlsConf := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: ep.InsecureSkipVerify} //nolint:gosec // opt-in per BMC
	if ep.CAFile != "" {
		pem, err := os.ReadFile(ep.CAFile)
		if err != nil {
			return nil, &failure{kindConfig, fmt.Sprintf("read the BMC's CA file %s: %v", ep.CAFile, err)}
		}
		tlsConf.RootCAs = x509.NewCertPool()
		if !tlsConf.RootCAs.AppendCertsFromPEM(pem) {
			return nil, &failure{kindConfig, "the BMC's CA file " + ep.CAFile + " holds no PEM certificate"}
		}
	}
	tr := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		TLSClientConfig:     tlsConf,
		TLSHandshakeTimeout: 10 * time.Second,
		IdleConnTimeout:     30 * time.Second,
		MaxIdleConnsPerHost: 2,
	}
	cfg := gofish.ClientConfig{
		Endpoint:          base,
		HTTPClient:        &http.Client{Transport: tr, Timeout: timeout},
		NoModifyTransport: true,
		ReuseConnections:  true,
	}
	// The service root is readable without credentials (DSP0266): read it
	// to learn whether the BMC has sessions.
	var anon *gofish.APIClient
	err = onBusy(ctx, func() (err error) {
		anon, err = gofish.ConnectContext(ctx, cfg)
		return err
	})
	if err != nil {
		tr.CloseIdleConnections()
		return nil, dialError(ep, err)
	}
	// Media actions take their bound from their context (slow.go).
	c := &gofishClient{cfg: cfg, creds: creds, unbounded: &http.Client{Transport: tr}}
	err = onBusy(ctx, func() (err error) {
		c.sessions, err = sessionsURI(ctx, anon)
		return err
	})
	if err == nil {
		err = c.login(ctx, anon)
	}
	if err != nil {
		tr.CloseIdleConnections()
		return nil, dialError(ep, err)
	}
	c.anon = anon
	return c, nil
}

// sessionsURI is where sessions are created, "" when the service root
// links no SessionService.
func sessionsURI(ctx context.Context, anon *gofish.APIClient) (string, error) {
	resp, err := anon.WithContext(ctx).Get(schemas.DefaultServiceRoot)
	defer schemas.DeferredCleanupHTTPResponse(resp)
	if err != nil {
		return "", err
	}
	var root struct {
		SessionService struct {
			ID string `json:"@odata.id"`
		}
		Links struct {
			Sessions struct {
				ID string `json:"@odata.id"`
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&root); err != nil {
		return "", fmt.Errorf("read the service root: %w", err)
	}
	switch {
	case root.SessionService.ID == "":
		return "", nil
	case root.Links.Sessions.ID != "":
		return root.Links.Sessions.ID, nil
	}
	return strings.TrimSuffix(root.SessionService.ID, "/") + "/Sessions", nil
}

// login makes c.api: a new session, or basic auth where there are none.
func (c *gofishClient) login(ctx context.Context, anon *gofish.APIClient) error {
	cfg := c.cfg
	if c.sessions == "" {
		cfg.Username, cfg.Password, cfg.BasicAuth = c.creds.Username, c.creds.Password, true
		return onBusy(ctx, func() (err error) {
			c.api, err = gofish.ConnectContext(ctx, cfg)
			return err
		})
	}
	var auth *schemas.AuthToken
	err := onBusy(ctx, func() (err error) {
		auth, err = schemas.CreateSession(anon.WithContext(ctx), c.sessions, c.creds.Username, c.creds.Password)
		return err
	})
	if err != nil {
		return err
	}
	if auth.Token == "" {
		return &failure{kindRejected, "the BMC created a session without an X-Auth-Token"}
	}
	cfg.Session = &gofish.Session{ID: auth.Session, Token: auth.Token}
	var api *gofish.APIClient
	err = onBusy(ctx, func() (err error) {
		api, err = gofish.ConnectContext(ctx, cfg)
		return err
	})
	if err != nil {
		c.logout(anon, auth.Session) // do not leave it behind
		return err
	}
	c.api, c.session = api, auth.Session
	return nil
}

// logout deletes a session with a fresh short context (the activity's may
// be cancelled); a failure leaves it to expire on the BMC.
func (c *gofishClient) logout(api *gofish.APIClient, session string) {
	if session == "" || api == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), logoutTimeout)
	defer cancel()
	_ = api.WithContext(ctx).Service.DeleteSession(session)
}

// Close logs out and drops idle connections.
func (c *gofishClient) Close() {
	c.logout(c.api, c.session)
	c.session = ""
	c.cfg.HTTPClient.CloseIdleConnections()
}

// relogin replaces a session the BMC no longer accepts (expired, or lost in
// a BMC reboot): once per run of 401s, so wrong credentials fail instead of
// looping. The dead session is not deleted: the BMC already dropped it. A
// login refused at the session cap is returned, and the next call tries
// again (the caller waits for a place, see sessioncap.go).
func (c *gofishClient) relogin(ctx context.Context, err error) (bool, error) {
	if c.sessions == "" || c.relogged || !isUnauthorized(err) {
		return false, nil
	}
	c.relogged = true
	c.session = ""
	if lerr := c.login(ctx, c.anon); lerr != nil {
		if sessionCapped(lerr) {
			c.relogged = false
			return false, lerr
		}
		return false, nil
	}
	return true, nil
}

// isUnauthorized: a 401, also inside a collection read.
func isUnauthorized(err error) bool {
	var ce *schemas.CollectionError
	if errors.As(err, &ce) {
		for _, e := range ce.Failures {
			if isUnauthorized(e) {
				return true
			}
		}
	}
	var rf *schemas.Error
	return errors.As(err, &rf) && rf.HTTPReturnedStatusCode == http.StatusUnauthorized
}

// call runs one request, bounded by RequestTimeout, logging in again once
// when the session was lost.
func (c *gofishClient) call(ctx context.Context, req func(api *gofish.APIClient) error) error {
	return c.callWith(ctx, nil, req)
}

// callWith is call over hc (nil: the client's own, bounded by
// RequestTimeout): a media action's request is bounded by its context
// instead (slow.go).
func (c *gofishClient) callWith(ctx context.Context, hc *http.Client, req func(api *gofish.APIClient) error) error {
	api := func() *gofish.APIClient {
		a := c.api.WithContext(ctx)
		if hc != nil {
			a.HTTPClient = hc
		}
		return a
	}
	err := req(api())
	if err != nil {
		relogged, lerr := c.relogin(ctx, err)
		if lerr != nil {
			return lerr
		}
		if relogged {
			err = req(api())
		}
	}
	if err == nil {
		c.relogged = false
	}
	return err
}

// dialError turns what a first contact can hit into a configuration error
// when retrying cannot help: a plain-HTTP BMC spoken to with TLS, or a
// certificate that does not verify.
func dialError(ep Endpoint, err error) error {
	addr := redactURL(strings.TrimSpace(ep.Address))
	var rh tls.RecordHeaderError
	if errors.Is(err, http.ErrSchemeMismatch) || errors.As(err, &rh) {
		if !strings.Contains(addr, "://") {
			return &failure{kindConfig, fmt.Sprintf("the BMC at %s answers plain HTTP, and an address without a scheme means https: write http://%s explicitly, or enable TLS on the BMC", addr, addr)}
		}
		return &failure{kindConfig, fmt.Sprintf("the BMC at %s does not speak TLS: write http:// instead, or enable TLS on the BMC", addr)}
	}
	var cert *tls.CertificateVerificationError
	if errors.As(err, &cert) {
		if ep.CAFile != "" {
			return &failure{kindConfig, fmt.Sprintf("the BMC's certificate does not verify against caFile %s: %v; put the CA that signed it in that file", ep.CAFile, cert.Err)}
		}
		return &failure{kindConfig, fmt.Sprintf("the BMC's certificate does not verify against the system roots: %v; set caFile for this BMC (or the site) to the PEM of the CA that signed it", cert.Err)}
	}
	return err
}
