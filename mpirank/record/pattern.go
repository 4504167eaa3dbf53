package record

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gpumap/gpumap/gpumap/graph"
)

// Header is what the comment lines of a pattern file say.
type Header struct {
	Program  string
	Ranks    int
	Hosts    []string // distinct hosts, in order of their first rank
	RankHost []int32  // index into Hosts of every rank; nil when not recorded
}

// Pattern is the merged traffic of all ranks.
type Pattern struct {
	Header
	Bytes *graph.Graph // edge weight: bytes sent in both directions
	Msgs  *graph.Graph // edge weight: messages sent in both directions
	// Totals over all ranks: sent to other ranks, sent to oneself, and
	// messages the recorder could not attribute.
	SentBytes, SentMsgs, SelfBytes, SelfMsgs, Lost uint64
}

// hostName keeps a processor name to one header field.
func hostName(h string) string {
	h = strings.Join(strings.Fields(h), "_")
	if h == "" {
		return "?"
	}
	return h
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Summary describes the pattern in one line.
func (p *Pattern) Summary() string {
	hosts := "hosts"
	if len(p.Hosts) == 1 {
		hosts = "host"
	}
	s := fmt.Sprintf("%d ranks on %d %s, %d edges, %d bytes in %d messages", p.Ranks, len(p.Hosts), hosts, p.Bytes.M(), p.SentBytes, p.SentMsgs)
	if p.Lost > 0 {
		s += fmt.Sprintf(", %d messages not recorded", p.Lost)
	}
	return s
}

// Write writes the pattern with its header: the byte graph, or with
// messages the message-count graph.
func (p *Pattern) Write(w io.Writer, messages bool) error {
	g, what := p.Bytes, "bytes"
	if messages {
		g, what = p.Msgs, "messages"
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%% gpumap record: MPI_COMM_WORLD communication pattern, vertex i+1 = rank i, edge weight = %s sent both ways\n", what)
	fmt.Fprintf(bw, "%% program: %s\n%% ranks: %d\n%% hosts: %s\n%% rank-hosts:", p.Program, p.Ranks, strings.Join(p.Hosts, " "))
	for _, h := range p.RankHost {
		bw.WriteByte(' ')
		bw.WriteString(strconv.Itoa(int(h)))
	}
	fmt.Fprintf(bw, "\n%% sent: %d bytes in %d messages (to self: %d bytes in %d messages)\n", p.SentBytes, p.SentMsgs, p.SelfBytes, p.SelfMsgs)
	if p.Lost > 0 {
		fmt.Fprintf(bw, "%% not recorded: %d messages (to processes outside MPI_COMM_WORLD, or the recorder ran out of memory)\n", p.Lost)
	}
	if err := graph.WriteMETIS(bw, g); err != nil {
		return err
	}
	return bw.Flush()
}

// WriteFile writes the pattern to path (see Write).
func (p *Pattern) WriteFile(path string, messages bool) error {
	return graph.WriteFile(path, func(w io.Writer) error { return p.Write(w, messages) })
}

// ReadHeader parses the leading comment lines of a pattern file. A file
// without them (any METIS graph) gives an empty Header; malformed lines
// that a recorder would have written are errors naming the line.
func ReadHeader(r io.Reader) (Header, error) {
	var h Header
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<30)
	ranks := -1
	for line := 1; sc.Scan(); line++ {
		ln := sc.Text()
		if !strings.HasPrefix(ln, "%") {
			break
		}
		key, val, ok := strings.Cut(strings.TrimSpace(ln[1:]), ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		bad := func(format string, a ...any) (Header, error) {
			return Header{}, fmt.Errorf("line %d (%s): %s", line, key, fmt.Sprintf(format, a...))
		}
		switch key {
		case "program":
			h.Program = val
		case "ranks":
			n, err := strconv.Atoi(val)
			if err != nil || n < 0 {
				return bad("%q is not a rank count", val)
			}
			h.Ranks, ranks = n, n
		case "hosts":
			h.Hosts = strings.Fields(val)
		case "rank-hosts":
			f := strings.Fields(val)
			h.RankHost = make([]int32, len(f))
			for i, s := range f {
				v, err := strconv.Atoi(s)
				if err != nil || v < 0 || v >= len(h.Hosts) {
					return bad("rank %d: host index %q is not one of the %d hosts", i, s, len(h.Hosts))
				}
				h.RankHost[i] = int32(v)
			}
			if ranks >= 0 && len(f) != ranks {
				return bad("%d entries for %d ranks", len(f), ranks)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return Header{}, err
	}
	return h, nil
}

// ReadFile reads a pattern file: the graph (any METIS graph, compressed or
// not) and, for a file with a recorder's header, the header. The file is
// read once (a FIFO or /dev/stdin works; opening it twice waited forever).
func ReadFile(path string) (*graph.Graph, Header, error) {
	data, err := graph.ReadText(path, 0)
	if err != nil {
		return nil, Header{}, err
	}
	g, err := graph.ParseMETIS(data)
	if err != nil {
		return nil, Header{}, fmt.Errorf("%s: %w", path, err)
	}
	h, err := ReadHeader(bytes.NewReader(data))
	if err != nil {
		return nil, Header{}, fmt.Errorf("%s: %w", path, err)
	}
	if h.RankHost != nil && len(h.RankHost) != g.N() {
		return nil, Header{}, fmt.Errorf("%s: the header places %d ranks but the graph has %d vertices", path, len(h.RankHost), g.N())
	}
	return g, h, nil
}
