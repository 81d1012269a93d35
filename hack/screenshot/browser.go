package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// The browser window, and so the pictures: wide enough for the workflow
// list's columns and the history's timeline.
const winW, winH = 1600, 1000

// browser is one headless Chromium, driven over the DevTools protocol, with
// one tab that photographs the UI's pages in turn.
type browser struct {
	ctx    context.Context // the tab
	cancel func()
}

// startBrowser starts chromium headless with a fresh profile (no earlier
// runs' state, no first-run dialogs) and opens its tab. uiOrigin's pages
// get the workflow list's columns in localStorage before their scripts run.
func startBrowser(chromium, profile, uiOrigin, namespace string) (*browser, error) {
	if err := os.MkdirAll(profile, 0o700); err != nil {
		return nil, err
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromium),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(winW, winH),
	)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	b := &browser{ctx: ctx, cancel: func() { cancelCtx(); cancelAlloc() }}
	// The first action starts Chromium; it lives as long as ctx (no
	// timeout here: each page gets its own below).
	err := chromedp.Do(ctx)
	var script string
	if err == nil {
		script, err = settingsScript(uiOrigin, namespace)
	}
	if err == nil {
		_, err = chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: script})
	}
	if err == nil {
		err = chromedp.Do(ctx, chromedp.EmulateViewport(winW, winH))
	}
	if err != nil {
		b.cancel()
		return nil, fmt.Errorf("chromium %s: %w", chromium, err)
	}
	return b, nil
}

func (b *browser) close() { b.cancel() }

// workflowColumns are the columns of the UI's workflow list (ui-server
// v2.42: the persisted store "namespace-workflow-table-columns", one list
// of {label} per namespace; a custom search attribute is a column by its
// name). The default list has Run ID and End instead of our search
// attributes; the UI has no column for a workflow's summary.
var workflowColumns = []string{"Status", "Workflow ID", "Type", "RackrollOperation", "RackrollPhase", "Start"}

// settingsScript puts the UI's settings into the UI origin's localStorage
// before the app reads them, on every page the tab loads: the workflow
// list's columns, and the Saved Views panel closed ("savedQueryNavOpen"),
// which leaves the columns the width of the page.
func settingsScript(uiOrigin, namespace string) (string, error) {
	cols := make([]map[string]string, len(workflowColumns))
	for i, l := range workflowColumns {
		cols[i] = map[string]string{"label": l}
	}
	items := map[string]any{
		"namespace-workflow-table-columns": map[string]any{namespace: cols},
		"savedQueryNavOpen":                false,
	}
	var js strings.Builder
	for k, v := range items {
		value, err := json.Marshal(v)
		if err != nil {
			return "", err
		}
		// JSON strings are JavaScript string literals.
		key, _ := json.Marshal(k)
		val, _ := json.Marshal(string(value))
		fmt.Fprintf(&js, "localStorage.setItem(%s, %s);", key, val)
	}
	origin, _ := json.Marshal(uiOrigin)
	return fmt.Sprintf(`try { if (location.origin === %s) { %s } } catch (e) {}`, origin, js.String()), nil
}

// shoot loads url and waits until the page's text, its frames' included
// (the UI renders summaries and details as Markdown in an iframe), has
// every one of want, and the workflow table at least rows rows, before it
// takes the picture: the UI is a single-page app that fetches after load,
// and the page of a running workflow long-polls its history, so neither
// the load event nor an idle network says it is ready. A page that never
// gets ready is still photographed, into failed, to show what it did show.
func (b *browser) shoot(url string, want []string, rows int, failed string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(b.ctx, 90*time.Second)
	defer cancel()
	log.Printf("chromium: %s", url)
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		return nil, fmt.Errorf("load %s: %w", url, err)
	}
	wantJS, _ := json.Marshal(want)
	ready := fmt.Sprintf(`(() => {
		let text = document.body ? document.body.textContent : "";
		for (const f of document.querySelectorAll("iframe")) {
			try { text += f.contentDocument.body.textContent; } catch (e) {}
		}
		const rows = document.querySelectorAll('[data-testid="workflows-summary-configurable-table-row"]').length;
		return rows >= %d && %s.every(w => text.includes(w));
	})()`, rows, wantJS)
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](ready,
		chromedp.WithPollingInterval(250*time.Millisecond), chromedp.WithPollingTimeout(60*time.Second))); err != nil {
		if png, perr := chromedp.Run(b.ctx, chromedp.CaptureScreenshot()); perr == nil && os.WriteFile(failed, png, 0o644) == nil {
			log.Printf("the page as it was: %s", failed)
		}
		return nil, fmt.Errorf("%s never showed %q (%d rows): %w", url, want, rows, err)
	}
	// Fonts, icons and the timeline's layout settle after the data.
	if err := chromedp.Do(ctx, chromedp.Sleep(time.Second)); err != nil {
		return nil, err
	}
	return chromedp.Run(ctx, chromedp.CaptureScreenshot())
}
