package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"
)

// File names written by WriteAll.
const (
	FileJSON     = "conformance-report.json"
	FileJUnit    = "junit.xml"
	FileMarkdown = "summary.md"
	FileHTML     = "report.html"
)

// WriteAll writes the four report files into dir, creating it. gr is the
// Ginkgo report the JUnit file is made from.
func WriteAll(dir string, r *Report, gr types.Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	writers := []struct {
		name  string
		write func(io.Writer) error
	}{
		{FileJSON, r.WriteJSON},
		{FileMarkdown, r.WriteMarkdown},
		{FileHTML, r.WriteHTML},
	}
	for _, w := range writers {
		var buf bytes.Buffer
		if err := w.write(&buf); err != nil {
			return fmt.Errorf("report: rendering %s: %w", w.name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, w.name), buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	err := reporters.GenerateJUnitReportWithConfig(r.junitView(gr), filepath.Join(dir, FileJUnit), reporters.JunitReportConfig{
		OmitLeafNodeType:          true,
		OmitTimelinesForSpecState: types.SpecStatePassed | types.SpecStateSkipped | types.SpecStatePending,
	})
	if err != nil {
		return fmt.Errorf("report: writing %s: %w", FileJUnit, err)
	}
	return nil
}

// RecommendationPrefix starts the JUnit name of a spec that checks a
// recommendation, and RecommendationNotMet the message of one it did not
// meet: such specs are reported as skipped, never as failures, so a CI
// job reading junit.xml fails only for rules that decide the verdict.
const (
	RecommendationPrefix = "[recommendation] "
	RecommendationNotMet = "recommendation not met (it does not decide the verdict): "
)

// junitView returns a copy of gr in which the specs of recommendations are
// named as such and their failures and errors turned into skips that keep
// the message.
func (r *Report) junitView(gr types.Report) types.Report {
	if len(r.Recommendations) == 0 {
		return gr
	}
	rec := map[string]bool{}
	for _, e := range r.Recommendations {
		rec[e.ID] = true
	}
	out := gr
	out.SpecReports = make(types.SpecReports, len(gr.SpecReports))
	for i, sr := range gr.SpecReports {
		ids := reqIDs(sr.Labels())
		if len(ids) == 1 && rec[ids[0]] && sr.LeafNodeType.Is(types.NodeTypeIt) {
			sr.LeafNodeText = RecommendationPrefix + sr.LeafNodeText
			if sr.State.Is(types.SpecStateFailureStates) {
				sr.State = types.SpecStateSkipped
				sr.Failure.Message = RecommendationNotMet + sr.Failure.Message
			}
		}
		out.SpecReports[i] = sr
	}
	return out
}

// WriteJSON writes the canonical JSON report.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// mdEscape keeps a value from breaking a Markdown table cell.
func mdEscape(s string) string {
	s = strings.ReplaceAll(s, "\r", "")
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, "|", `\|`)
	if len(s) > 400 {
		s = s[:400] + "…"
	}
	return s
}

// WriteMarkdown writes a human summary: verdict, counts, what did not
// pass, then every requirement.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# MCP tasks conformance: %s\n\n", r.Summary.Verdict)
	fmt.Fprintf(&b, "- mode: %s\n", r.Mode)
	if r.Implementation != nil {
		fmt.Fprintf(&b, "- implementation: %s %s\n", r.Implementation.Name, r.Implementation.Version)
	}
	if len(r.Targets) > 0 {
		fmt.Fprintf(&b, "- target: %s\n", strings.Join(r.Targets, ", "))
	}
	fmt.Fprintf(&b, "- spec version: %s\n", r.SpecVersion)
	fmt.Fprintf(&b, "- tool: %s %s %s\n", r.Tool.Name, r.Tool.Version, r.Tool.Commit)
	if r.LabelFilter != "" {
		fmt.Fprintf(&b, "- label filter: `%s`\n", r.LabelFilter)
	}
	fmt.Fprintf(&b, "- profile: %s%s\n", r.Profile, strictNote(r.Strict))
	if len(r.Protocols) > 0 {
		fmt.Fprintf(&b, "- protocols certified: %s\n", strings.Join(r.Protocols, ", "))
	}
	fmt.Fprintf(&b, "- specs: %d (%d ran) in %.1f s\n\n", r.Summary.Specs, r.Summary.Ran, r.Summary.DurationSeconds)

	b.WriteString("| level |")
	for _, s := range Statuses {
		fmt.Fprintf(&b, " %s |", s)
	}
	b.WriteString("\n|---|")
	for range Statuses {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, l := range Levels {
		fmt.Fprintf(&b, "| %s |", l)
		for _, s := range Statuses {
			fmt.Fprintf(&b, " %d |", r.Summary.Counts[l][s])
		}
		b.WriteString("\n")
	}
	if len(r.HarnessErrors) > 0 {
		b.WriteString("\n## Harness errors\n\n")
		for _, e := range r.HarnessErrors {
			fmt.Fprintf(&b, "- %s\n", mdEscape(e))
		}
	}
	if failing := r.Failing(); len(failing) > 0 {
		b.WriteString("\n## Not passed\n\n| id | level | status | message |\n|---|---|---|---|\n")
		for _, e := range failing {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", e.ID, e.Level, e.Status, mdEscape(e.Message))
		}
	}
	if len(r.Recommendations) > 0 {
		b.WriteString("\n## Recommendations\n\nRules of this toolkit, not of the MCP specification: they never decide the verdict " +
			"(use the mcptasks profile or strict mode to bind them).\n\n| id | level | status | message |\n|---|---|---|---|\n")
		for _, e := range r.Recommendations {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", e.ID, e.Level, e.Status, mdEscape(e.Message))
		}
	}
	if len(r.Features.Decisions) > 0 {
		b.WriteString("\n## Features\n\nWhat decided which requirements applied: a feature that is off turns its requirements not-supported.\n\n" +
			"| feature | state | from | why |\n|---|---|---|---|\n")
		for _, d := range r.Features.Decisions {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", d.Name, d.State, d.Source, mdEscape(d.Reason))
		}
		if len(r.Features.Overridden) > 0 {
			fmt.Fprintf(&b, "\nOverridden by the operator: %s\n", mdEscape(strings.Join(r.Features.Overridden, ", ")))
		}
	}
	b.WriteString("\n## All requirements\n\n| id | level | status | specs | summary |\n|---|---|---|---:|---|\n")
	for _, e := range r.Requirements {
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %s |\n", e.ID, e.Level, e.Status, len(e.Specs), mdEscape(e.Summary))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// strictNote says when strict mode is on.
func strictNote(strict bool) string {
	if strict {
		return " (strict: SHOULD requirements and toolkit rules decide the verdict too)"
	}
	return ""
}

// htmlPage is the self-contained HTML report: inline CSS, no scripts, no
// external assets.
var htmlPage = template.Must(template.New("report").Funcs(template.FuncMap{
	"count": func(r *Report, level string, s Status) int { return r.Summary.Counts[level][s] },
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>MCP tasks conformance: {{.Summary.Verdict}}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:72em;padding:0 1em;color:#222}
h1{margin-bottom:.2em}
.verdict{display:inline-block;padding:.3em .8em;border-radius:.4em;font-weight:bold;color:#fff}
.v-conformant{background:#2e7d32}.v-partial{background:#b26a00}.v-non-conformant{background:#c62828}
table{border-collapse:collapse;margin:1em 0;width:100%}
th,td{border:1px solid #ddd;padding:.3em .5em;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.n{text-align:right}td.zero{color:#bbb}
.s-pass{color:#2e7d32}.s-fail{color:#c62828;font-weight:bold}.s-error{color:#6a1b9a;font-weight:bold}
.s-not-supported,.s-skipped{color:#b26a00}.s-not-applicable{color:#777}
.meta{color:#555}.msg{font-family:ui-monospace,monospace;white-space:pre-wrap;word-break:break-word}
details{margin:.2em 0}
</style></head><body>
<h1>MCP tasks conformance</h1>
<p><span class="verdict v-{{.Summary.Verdict}}">{{.Summary.Verdict}}</span>
 <span class="meta">{{.Mode}} mode{{with .Implementation}} · {{.Name}} {{.Version}}{{end}}{{range .Targets}} · {{.}}{{end}}
 · spec {{.SpecVersion}} · profile {{.Profile}}{{if .Strict}} (strict){{end}}{{if .Protocols}} · protocols {{range $i, $p := .Protocols}}{{if $i}}, {{end}}{{$p}}{{end}}{{end}} · {{.Summary.Specs}} specs ({{.Summary.Ran}} ran) in {{printf "%.1f" .Summary.DurationSeconds}} s
 · {{.Tool.Name}} {{.Tool.Version}}{{with .Tool.Commit}} ({{.}}){{end}} · {{.GeneratedAt.Format "2006-01-02 15:04:05Z07:00"}}</span></p>
<table><tr><th>level</th>{{range $.Statuses}}<th>{{.}}</th>{{end}}</tr>
{{range $l := $.Levels}}<tr><th>{{$l}}</th>{{range $s := $.Statuses}}{{$c := count $.R $l $s}}<td class="n{{if $c}} s-{{$s}}{{else}} zero{{end}}">{{$c}}</td>{{end}}</tr>
{{end}}</table>
{{with .HarnessErrors}}<h2>Harness errors</h2><ul>{{range .}}<li class="msg">{{.}}</li>{{end}}</ul>{{end}}
{{with .Failing}}<h2>Not passed</h2>
<table><tr><th>requirement</th><th>level</th><th>status</th><th>message</th></tr>
{{range .}}<tr><td><b>{{.ID}}</b><br><span class="meta">{{.Summary}}</span></td><td>{{.Level}}</td><td class="s-{{.Status}}">{{.Status}}</td>
<td><div class="msg">{{.Message}}</div>{{range .Specs}}{{if ne .Status "pass"}}<details><summary class="s-{{.Status}}">{{.Status}}: {{.Name}}</summary><div class="msg">{{.Message}}{{with .Location}}
at {{.}}{{end}}</div></details>{{end}}{{end}}</td></tr>
{{end}}</table>{{end}}
{{with .Recommendations}}<h2>Recommendations</h2>
<p class="meta">Rules of this toolkit, not of the MCP specification: they never decide the verdict (use the mcptasks profile or strict mode to bind them).</p>
<table><tr><th>recommendation</th><th>level</th><th>status</th><th>message</th></tr>
{{range .}}<tr><td><b>{{.ID}}</b><br><span class="meta">{{.Summary}}</span></td><td>{{.Level}}</td><td class="s-{{.Status}}">{{.Status}}</td><td><div class="msg">{{.Message}}</div></td></tr>
{{end}}</table>{{end}}
{{with .Features.Decisions}}<h2>Features</h2>
<p class="meta">What decided which requirements applied: a feature that is off turns its requirements not-supported.{{with $.Features.Overridden}} Overridden by the operator: {{range $i, $o := .}}{{if $i}}, {{end}}{{$o}}{{end}}.{{end}}</p>
<table><tr><th>feature</th><th>state</th><th>from</th><th>why</th></tr>
{{range .}}<tr><td><b>{{.Name}}</b></td><td class="{{if eq .State "on"}}s-pass{{else if eq .State "off"}}s-not-supported{{end}}">{{.State}}</td><td>{{.Source}}</td><td class="meta">{{.Reason}}</td></tr>
{{end}}</table>{{end}}
<h2>All requirements</h2>
<table><tr><th>requirement</th><th>level</th><th>status</th><th>section</th><th>specs</th></tr>
{{range .Requirements}}<tr><td><b>{{.ID}}</b><br><span class="meta">{{.Summary}}</span></td><td>{{.Level}}</td><td class="s-{{.Status}}">{{.Status}}</td><td class="meta">{{.Section}}</td><td class="n">{{len .Specs}}</td></tr>
{{end}}</table>
</body></html>
`))

// WriteHTML writes report.html: one page with no external assets.
func (r *Report) WriteHTML(w io.Writer) error {
	data := struct {
		*Report
		R        *Report
		Failing  []Entry
		Levels   []string
		Statuses []Status
	}{r, r, r.Failing(), Levels, Statuses}
	return htmlPage.Execute(w, data)
}

// WriteText writes a short plain-text summary for a console: the verdict,
// one line of counts per level, and each requirement that did not pass.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Verdict: %s (%d specs, %d ran)\n", r.Summary.Verdict, r.Summary.Specs, r.Summary.Ran)
	if len(r.Protocols) > 0 {
		fmt.Fprintf(&b, "Protocols certified: %s\n", strings.Join(r.Protocols, ", "))
	}
	for _, l := range Levels {
		fmt.Fprintf(&b, "  %-6s", l)
		for _, s := range Statuses {
			fmt.Fprintf(&b, "  %s %d", s, r.Summary.Counts[l][s])
		}
		b.WriteString("\n")
	}
	for _, e := range r.HarnessErrors {
		fmt.Fprintf(&b, "  harness error: %s\n", e)
	}
	for _, e := range r.Failing() {
		fmt.Fprintf(&b, "  %-14s %-6s %s: %s\n", e.Status, e.Level, e.ID, e.Message)
	}
	for _, e := range r.RecommendationsNotMet() {
		fmt.Fprintf(&b, "  recommendation %-14s %-6s %s: %s\n", e.Status, e.Level, e.ID, e.Message)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
