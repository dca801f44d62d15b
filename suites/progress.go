package suites

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
)

// progress tells a person watching a long run which area is running and
// how many specs are left (WithProgress).
type progress struct {
	w   io.Writer
	tty bool

	mu    sync.Mutex
	total int
	done  int
	area  string
	width int
}

func (p *progress) start(r ginkgo.Report) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total = r.PreRunStats.SpecsThatWillRun
}

// after counts a finished spec and reports the area it belonged to when
// the area changes (or, on a terminal, after every spec).
func (p *progress) after(sr ginkgo.SpecReport) {
	if sr.State.Is(types.SpecStateSkipped) && sr.RunTime == 0 && sr.Failure.Message == "" {
		return // filtered out: never ran
	}
	area := "other"
	for _, l := range sr.Labels() {
		if a, ok := strings.CutPrefix(l, LabelArea+":"); ok {
			area = a
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	left := max(p.total-p.done, 0)
	line := fmt.Sprintf("[%d/%d] area %s, %d specs left", p.done, p.total, area, left)
	switch {
	case p.tty:
		pad := ""
		if n := p.width - len(line); n > 0 {
			pad = strings.Repeat(" ", n)
		}
		fmt.Fprintf(p.w, "\r%s%s", line, pad)
		p.width = len(line)
	case area != p.area:
		fmt.Fprintln(p.w, line)
	}
	p.area = area
}

func (p *progress) end(ginkgo.Report) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.width > 0 {
		fmt.Fprintln(p.w)
	}
}
