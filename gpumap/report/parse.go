package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Drawn is one panel read back from a picture.
type Drawn struct {
	Title       string
	Level       int
	LevelName   string
	J           float64
	CutPerLevel []float64
	Total       float64
	Cells       map[[2]int]float64 // (row, col) -> value
}

// Cut adds up the cells above the diagonal: the volume between different
// groups, which is the cut of the drawn level.
func (d *Drawn) Cut() float64 {
	s := 0.0
	for rc, v := range d.Cells {
		if rc[0] < rc[1] {
			s += v
		}
	}
	return s
}

// Parse reads the panels of a picture written by WriteSVG as XML: what a
// test or a tool needs to check a picture against the numbers.
func Parse(r io.Reader) ([]Drawn, error) {
	dec := xml.NewDecoder(r)
	var out []Drawn
	var cur *Drawn
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			a := map[string]string{}
			for _, at := range t.Attr {
				a[at.Name.Local] = at.Value
			}
			switch {
			case t.Name.Local == "g" && a["class"] == "panel":
				d := Drawn{Title: a["data-title"], LevelName: a["data-level-name"], Cells: map[[2]int]float64{}}
				var errs []error
				d.Level, err = strconv.Atoi(a["data-level"])
				errs = append(errs, err)
				d.J, err = strconv.ParseFloat(a["data-j"], 64)
				errs = append(errs, err)
				d.Total, err = strconv.ParseFloat(a["data-total"], 64)
				errs = append(errs, err)
				for _, f := range strings.Split(a["data-cut-per-level"], ":") {
					v, err := strconv.ParseFloat(f, 64)
					errs = append(errs, err)
					d.CutPerLevel = append(d.CutPerLevel, v)
				}
				for _, e := range errs {
					if e != nil {
						return nil, fmt.Errorf("panel %q: %w", d.Title, e)
					}
				}
				out = append(out, d)
				cur = &out[len(out)-1]
			case t.Name.Local == "rect" && a["class"] == "cell":
				if cur == nil {
					return nil, fmt.Errorf("a cell outside any panel")
				}
				r, e1 := strconv.Atoi(a["data-row"])
				c, e2 := strconv.Atoi(a["data-col"])
				v, e3 := strconv.ParseFloat(a["data-value"], 64)
				if e1 != nil || e2 != nil || e3 != nil {
					return nil, fmt.Errorf("panel %q: malformed cell %v", cur.Title, t.Attr)
				}
				cur.Cells[[2]int{r, c}] = v
			}
		case xml.EndElement:
			if t.Name.Local == "g" && cur != nil {
				cur = nil
			}
		}
	}
	return out, nil
}
