package report

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

// Panel is one placement of the traffic: task t runs on PE PE[t].
type Panel struct {
	Title string
	PE    []int32
}

// Picture is the traffic of one or more placements drawn at one level.
type Picture struct {
	Title      string  // heading (the program, the graph)
	Traffic    Traffic // who talks to whom, how much
	Top        *topology.Topology
	Level      int      // the level whose groups are drawn (0: PEs)
	LevelNames []string // names of levels 0..L (nil: LevelNames(Top))
	GroupNames []string // names of the groups at Level in PE order (nil: "node 0", ...)
	Bytes      bool     // volumes are bytes (shown as KiB, MiB, ...)
	Panels     []Panel  // drawn left to right on one colour scale
}

// WriteFile writes the picture to path.
func (p *Picture) WriteFile(path string) error {
	return graph.WriteFile(path, p.WriteSVG)
}

// BeforeAfter draws two placements of the same traffic side by side at
// the default level (nodes) into path: the one call for commands that
// reorder.
func BeforeAfter(path, title string, tr Traffic, top *topology.Topology, before, after []int32, bytes bool) error {
	p := &Picture{Title: title, Traffic: tr, Top: top, Level: DefaultLevel(LevelNames(top)), Bytes: bytes,
		Panels: []Panel{{"before", before}, {"after", after}}}
	return p.WriteFile(path)
}

// Layout, in px.
const (
	margin    = 20
	matrixPx  = 360 // target matrix side
	maxCell   = 90
	minCell   = 2
	charPx    = 7 // approximate width of a 12 px sans-serif character
	captionLH = 17
)

// palette is a white-yellow-red sequential scale (ColorBrewer YlOrRd).
var palette = []uint32{0xffffcc, 0xffeda0, 0xfed976, 0xfeb24c, 0xfd8d3c, 0xfc4e2a, 0xe31a1c, 0xbd0026, 0x800026}

// colour maps v in [0, max] to the palette; zero is white.
func colour(v, max float64) (fill string, dark bool) {
	if v <= 0 || max <= 0 {
		return "#ffffff", false
	}
	x := math.Min(v/max, 1) * float64(len(palette)-1)
	i := min(int(x), len(palette)-2)
	f := x - float64(i)
	a, b := palette[i], palette[i+1]
	ch := func(s uint) uint32 {
		ca, cb := float64(a>>s&0xff), float64(b>>s&0xff)
		return uint32(math.Round(ca + f*(cb-ca)))
	}
	return fmt.Sprintf("#%02x%02x%02x", ch(16), ch(8), ch(0)), x > 4.5
}

type panelData struct {
	Panel
	m     *Matrix
	costs Costs
}

// WriteSVG renders the picture.
func (p *Picture) WriteSVG(out io.Writer) error {
	if len(p.Panels) == 0 {
		return fmt.Errorf("nothing to draw: no placement given")
	}
	names := p.LevelNames
	if names == nil {
		names = LevelNames(p.Top)
	}
	if len(names) != p.Top.Levels()+1 {
		return fmt.Errorf("%d level names for %d levels", len(names), p.Top.Levels()+1)
	}
	var pd []panelData
	vmax := 0.0
	for _, pn := range p.Panels {
		m, err := Aggregate(p.Traffic, p.Top, pn.PE, p.Level)
		if err != nil {
			return fmt.Errorf("%s: %w", pn.Title, err)
		}
		c, err := Evaluate(p.Traffic, p.Top, pn.PE)
		if err != nil {
			return fmt.Errorf("%s: %w", pn.Title, err)
		}
		for _, v := range m.Vol {
			vmax = math.Max(vmax, v)
		}
		pd = append(pd, panelData{pn, m, c})
	}
	n := pd[0].m.N()
	lvl := names[p.Level]
	groupName := func(i int) string {
		if p.GroupNames != nil && i < len(p.GroupNames) {
			return p.GroupNames[i]
		}
		return lvl + " " + strconv.Itoa(i)
	}
	cell := min(max(matrixPx/n, minCell), maxCell)
	side := cell * n
	showLabels := n <= 32
	labelW := 0
	if showLabels {
		for i := 0; i < n; i++ {
			labelW = max(labelW, len(label(groupName(i))))
		}
		labelW = labelW*charPx + 10
	}
	captions := make([][]string, len(pd))
	captionW := 0
	for i, d := range pd {
		captions[i] = p.caption(d, pd[0].costs, names)
		for _, s := range captions[i] {
			captionW = max(captionW, len(s)*charPx)
		}
	}
	unit := "weight"
	if p.Bytes {
		unit = "bytes"
	}
	notes := []string{
		fmt.Sprintf("Cell (a, b): %s exchanged between %s a and %s b; outlined diagonal: inside one %s.", unit, lvl, lvl, lvl),
		fmt.Sprintf("%d tasks on %s; one colour scale for all panels.", p.Traffic.N, describe(p.Top, names)),
	}
	if p.Level+1 < p.Top.Levels() {
		notes[1] += " Thick lines: " + names[p.Level+1] + " boundaries."
	}
	title := p.Title
	if title == "" {
		title = "gpumap: traffic between " + plural(lvl)
	}
	panelW := max(labelW+side, captionW) + 40
	top := 44 + captionLH*len(notes) // below heading and notes
	matrixY := top + 24 + labelW
	legendX := margin + len(pd)*panelW
	width := legendX + 110
	for _, s := range notes {
		width = max(width, 2*margin+len(s)*charPx*9/10)
	}
	height := matrixY + side + 12 + captionLH*len(captions[0]) + margin

	w := bufio.NewWriter(out)
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">
<rect width="100%%" height="100%%" fill="#ffffff"/>
`, width, height, width, height)
	fmt.Fprintf(w, `<text x="%d" y="%d" font-size="16" font-weight="bold">%s</text>`+"\n", margin, margin+8, esc(title))
	for i, s := range notes {
		fmt.Fprintf(w, `<text x="%d" y="%d" fill="#444">%s</text>`+"\n", margin, margin+30+i*captionLH, esc(s))
	}
	for i, d := range pd {
		x0 := margin + i*panelW
		p.panel(w, d, x0, top, matrixY, labelW, cell, vmax, lvl, groupName, showLabels, captions[i])
	}
	p.legend(w, legendX, matrixY, side, vmax)
	fmt.Fprintln(w, "</svg>")
	return w.Flush()
}

func (p *Picture) panel(w io.Writer, d panelData, x0, top, matrixY, labelW, cell int, vmax float64, lvl string,
	groupName func(int) string, showLabels bool, caption []string) {
	n := d.m.N()
	side := cell * n
	mx := x0 + labelW
	fmt.Fprintf(w, `<g class="panel" data-title="%s" data-level="%d" data-level-name="%s" data-groups="%d" data-j="%s" data-cut-per-level="%s" data-total="%s">`+"\n",
		esc(d.Title), d.m.Level, esc(lvl), n, num(d.costs.J), nums(d.costs.CutPerLevel), num(d.costs.Total))
	fmt.Fprintf(w, `<text x="%d" y="%d" font-size="14" font-weight="bold">%s</text>`+"\n", x0, top+14, esc(d.Title))
	if showLabels {
		for i := 0; i < n; i++ {
			c := cell*i + cell/2 + 4
			fmt.Fprintf(w, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", mx-6, matrixY+c, esc(label(groupName(i))))
			fmt.Fprintf(w, `<text transform="translate(%d,%d) rotate(-90)">%s</text>`+"\n", mx+c, matrixY-6, esc(label(groupName(i))))
		}
	}
	fmt.Fprintf(w, `<rect x="%d" y="%d" width="%d" height="%d" fill="#ffffff" stroke="#888"/>`+"\n", mx, matrixY, side, side)
	grid := n <= 64
	text := cell >= 40
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			v := d.m.At(a, b)
			if v == 0 && !grid {
				continue
			}
			fill, dark := colour(v, vmax)
			stroke := ""
			switch {
			case a == b && cell >= 6:
				stroke = ` stroke="#222" stroke-width="1.5"`
			case grid && cell >= 6:
				stroke = ` stroke="#dddddd" stroke-width="0.5"`
			}
			x, y := mx+b*cell, matrixY+a*cell
			fmt.Fprintf(w, `<rect class="cell" x="%d" y="%d" width="%d" height="%d" fill="%s"%s data-row="%d" data-col="%d" data-value="%s"><title>%s</title></rect>`+"\n",
				x, y, cell, cell, fill, stroke, a, b, num(v), esc(p.cellTitle(groupName(a), groupName(b), v)))
			if text && v > 0 {
				tc := "#000000"
				if dark {
					tc = "#ffffff"
				}
				fmt.Fprintf(w, `<text x="%d" y="%d" text-anchor="middle" fill="%s" font-size="11">%s</text>`+"\n",
					x+cell/2, y+cell/2+4, tc, esc(p.amount(v)))
			}
		}
	}
	// Boundaries of the groups one level up (the sockets of one node).
	if d.m.Level+1 < p.Top.Levels() {
		for i, g := range d.m.Groups {
			if i > 0 && p.Top.GroupOf(d.m.Level+1, g.Lo).Lo == g.Lo {
				o := i * cell
				fmt.Fprintf(w, `<path d="M%d %dv%dM%d %dh%d" stroke="#000" stroke-width="2"/>`+"\n", mx+o, matrixY, side, mx, matrixY+o, side)
			}
		}
	}
	for i, s := range caption {
		fmt.Fprintf(w, `<text x="%d" y="%d">%s</text>`+"\n", x0, matrixY+side+20+i*captionLH, esc(s))
	}
	fmt.Fprintln(w, "</g>")
}

func (p *Picture) cellTitle(a, b string, v float64) string {
	if a == b {
		return fmt.Sprintf("inside %s: %s", a, p.amount(v))
	}
	return fmt.Sprintf("%s - %s: %s", a, b, p.amount(v))
}

// caption: J (and its change against the first panel), cut per level,
// and the share of the traffic that crosses the drawn level.
func (p *Picture) caption(d panelData, first Costs, names []string) []string {
	j := "J = " + strconv.FormatFloat(d.costs.J, 'f', -1, 64)
	if math.Abs(d.costs.J) >= 1e15 {
		j = "J = " + strconv.FormatFloat(d.costs.J, 'g', 6, 64)
	}
	if d.costs.J != first.J && first.J > 0 {
		j += fmt.Sprintf(" (%+.1f%%)", 100*(d.costs.J/first.J-1))
	}
	var cuts []string
	for l, c := range d.costs.CutPerLevel {
		cuts = append(cuts, names[l]+" "+p.amount(c))
	}
	share := ""
	if d.costs.Total > 0 {
		share = fmt.Sprintf(" (%.1f%%)", 100*d.costs.CutPerLevel[d.m.Level]/d.costs.Total)
	}
	return []string{
		j,
		"cut per level: " + strings.Join(cuts, ", "),
		fmt.Sprintf("between %s: %s of %s%s", plural(names[d.m.Level]), p.amount(d.costs.CutPerLevel[d.m.Level]), p.amount(d.costs.Total), share),
	}
}

func (p *Picture) legend(w io.Writer, x, y, h int, vmax float64) {
	const steps = 32
	fmt.Fprintf(w, `<g class="legend">`+"\n")
	for i := 0; i < steps; i++ {
		v := vmax * float64(steps-i) / steps
		fill, _ := colour(v, vmax)
		fmt.Fprintf(w, `<rect x="%d" y="%.2f" width="16" height="%.2f" fill="%s"/>`+"\n", x, float64(y)+float64(h*i)/steps, float64(h)/steps+0.5, fill)
	}
	fmt.Fprintf(w, `<rect x="%d" y="%d" width="16" height="%d" fill="none" stroke="#888"/>`+"\n", x, y, h)
	fmt.Fprintf(w, `<text x="%d" y="%d">%s</text>`+"\n", x+22, y+10, esc(p.amount(vmax)))
	fmt.Fprintf(w, `<text x="%d" y="%d">0</text>`+"\n", x+22, y+h)
	fmt.Fprintln(w, "</g>")
}

// amount formats a volume: bytes as B/KiB/MiB/GiB/TiB, weights as plain
// numbers.
func (p *Picture) amount(v float64) string {
	if !p.Bytes {
		if v == math.Trunc(v) && math.Abs(v) < 1e12 {
			return strconv.FormatFloat(v, 'f', 0, 64)
		}
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	i := 0
	for math.Abs(v) >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64) + " " + units[i]
	}
	return strconv.FormatFloat(v, 'g', 3, 64) + " " + units[i]
}

// label shortens a long group name (a fully qualified host name) for the
// axes; the cells' tooltips keep it whole.
func label(s string) string {
	const most = 24
	if r := []rune(s); len(r) > most {
		return string(r[:most-1]) + "…"
	}
	return s
}

func plural(s string) string {
	switch {
	case strings.HasSuffix(s, "ch"):
		return s + "es"
	case s == "machine" || strings.HasPrefix(s, "level "):
		return s + " groups"
	}
	return s + "s"
}

// describe: "16 PEs in 4 sockets in 2 nodes, distances 1:10:100".
func describe(top *topology.Topology, names []string) string {
	s := fmt.Sprintf("%d PEs", top.K())
	for l := 1; l < top.Levels(); l++ {
		s += fmt.Sprintf(" in %d %s", len(Groups(top, l)), plural(names[l]))
	}
	return s + ", distances " + topology.FormatInts(top.Distances())
}

// num prints a float so that it parses back to the same value.
func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func nums(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = num(x)
	}
	return strings.Join(s, ":")
}

func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}
