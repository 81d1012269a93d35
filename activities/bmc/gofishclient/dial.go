package gofishclient

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

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/stmcginnis/gofish"
	"github.com/stmcginnis/gofish/schemas"
)

// logoutTimeout bounds the DELETE of a session on the way out: the
// activity's own context may already be cancelled.
const logoutTimeout = 10 * time.Second

// Dial connects with gofish; it is a bmcclient.Dialer. Where the service
// root links a SessionService it logs in (one Redfish session per activity
// attempt, deleted by Close); basic auth only where it does not (BMCs allow
// few sessions, iLO logs every basic-auth login, iDRAC10 firmware ships
// with basic auth unadvertised). A worker that dies mid-attempt cannot log
// out: its session expires on the BMC after the SessionService's
// SessionTimeout, and the retried attempt opens its own. TLS is verified
// against Endpoint.CAFile (or the system roots) unless the endpoint says
// otherwise.
func Dial(ctx context.Context, ep bmcclient.Endpoint, creds bmcclient.Credentials, timeout time.Duration) (bmcclient.Client, error) {
	base, err := bmcclient.BaseURL(ep.Address)
	if err != nil {
		return nil, configError(err.Error())
	}
	tlsConf := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: ep.InsecureSkipVerify} //nolint:gosec // opt-in per BMC
	if ep.CAFile != "" {
		pem, err := os.ReadFile(ep.CAFile)
		if err != nil {
			return nil, configError(fmt.Sprintf("read the BMC's CA file %s: %v", ep.CAFile, err))
		}
		tlsConf.RootCAs = x509.NewCertPool()
		if !tlsConf.RootCAs.AppendCertsFromPEM(pem) {
			return nil, configError("the BMC's CA file " + ep.CAFile + " holds no PEM certificate")
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
	// Media actions take their bound from their context alone.
	c := &client{cfg: cfg, creds: creds, unbounded: &http.Client{Transport: tr}}
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
func (c *client) login(ctx context.Context, anon *gofish.APIClient) error {
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
		return rejected("the BMC created a session without an X-Auth-Token")
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
func (c *client) logout(api *gofish.APIClient, session string) {
	if session == "" || api == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), logoutTimeout)
	defer cancel()
	_ = api.WithContext(ctx).Service.DeleteSession(session)
}

// Close logs out and drops idle connections.
func (c *client) Close() {
	c.logout(c.api, c.session)
	c.session = ""
	c.cfg.HTTPClient.CloseIdleConnections()
}

// relogin replaces a session the BMC no longer accepts (expired, or lost in
// a BMC reboot): once per run of 401s, so wrong credentials fail instead of
// looping. The dead session is not deleted: the BMC already dropped it. A
// login refused at the session cap is returned, and the next call tries
// again (the caller waits for a place: bmcclient.SessionCapped).
func (c *client) relogin(ctx context.Context, err error) (bool, error) {
	if c.sessions == "" || c.relogged || !bmcclient.Unauthorized(err) {
		return false, nil
	}
	c.relogged = true
	c.session = ""
	if lerr := c.login(ctx, c.anon); lerr != nil {
		if bmcclient.SessionCapped(lerr) {
			c.relogged = false
			return false, lerr
		}
		return false, nil
	}
	return true, nil
}

// call runs one request, bounded by the request timeout, logging in again
// once when the session was lost. Its error is in bmcclient's terms
// (redfishError).
func (c *client) call(ctx context.Context, req func(api *gofish.APIClient) error) error {
	return c.callWith(ctx, nil, req)
}

// callWith is call over hc (nil: the client's own, bounded by the request
// timeout): a media action's request is bounded by its context instead.
func (c *client) callWith(ctx context.Context, hc *http.Client, req func(api *gofish.APIClient) error) error {
	api := func() *gofish.APIClient {
		a := c.api.WithContext(ctx)
		if hc != nil {
			a.HTTPClient = hc
		}
		return a
	}
	err := redfishError(req(api()))
	if err != nil {
		relogged, lerr := c.relogin(ctx, err)
		if lerr != nil {
			return lerr
		}
		if relogged {
			err = redfishError(req(api()))
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
func dialError(ep bmcclient.Endpoint, err error) error {
	addr := bmcclient.RedactURL(strings.TrimSpace(ep.Address))
	var rh tls.RecordHeaderError
	if errors.Is(err, http.ErrSchemeMismatch) || errors.As(err, &rh) {
		if !strings.Contains(addr, "://") {
			return configError(fmt.Sprintf("the BMC at %s answers plain HTTP, and an address without a scheme means https: write http://%s explicitly, or enable TLS on the BMC", addr, addr))
		}
		return configError(fmt.Sprintf("the BMC at %s does not speak TLS: write http:// instead, or enable TLS on the BMC", addr))
	}
	var cert *tls.CertificateVerificationError
	if errors.As(err, &cert) {
		if ep.CAFile != "" {
			return configError(fmt.Sprintf("the BMC's certificate does not verify against caFile %s: %v; put the CA that signed it in that file", ep.CAFile, cert.Err))
		}
		return configError(fmt.Sprintf("the BMC's certificate does not verify against the system roots: %v; set caFile for this BMC (or the site) to the PEM of the CA that signed it", cert.Err))
	}
	return err
}
