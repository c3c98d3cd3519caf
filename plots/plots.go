// Package plots renders figures from a run's result files (never from simulation memory), so
// that anyone can redraw them with their own tools from the same CSVs: health values over
// time with fault markers, throughput over time, and message latency CDFs. Output format
// follows the file extension (.png, .svg, .pdf); files are written atomically.
package plots

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"image/color"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/lnetsim/lnetsim/internal/atomicfile"
	"github.com/lnetsim/lnetsim/record"
	"github.com/lnetsim/lnetsim/sim"
)

// MaxBins bounds the throughput figure's time bins (--bins).
const MaxBins = 1000000

// ErrNothingToPlot is wrapped by the errors of figures whose input holds no data for them (no
// health change, no completed message, no NI that sent anything): the figure is not drawn,
// which is no failure.
var ErrNothingToPlot = errors.New("nothing to plot")

// ErrWrite is wrapped by the error of a figure that was drawn but could not be written (a
// read-only directory, a full disk, a directory in the way).
var ErrWrite = errors.New("cannot write")

// Size of every figure.
const (
	width  = 8 * vg.Inch
	height = 4.5 * vg.Inch
)

// palette is a colour-blind-safe qualitative palette (Okabe-Ito).
var palette = []color.Color{
	color.RGBA{0, 114, 178, 255}, color.RGBA{213, 94, 0, 255}, color.RGBA{0, 158, 115, 255},
	color.RGBA{204, 121, 167, 255}, color.RGBA{230, 159, 0, 255}, color.RGBA{86, 180, 233, 255},
	color.RGBA{240, 228, 66, 255}, color.RGBA{0, 0, 0, 255},
}

// table is a CSV file read into rows keyed by column name.
type table struct {
	name string
	cols map[string]int
	rows [][]string
}

func readTable(path string) (*table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: empty file (no header)", path)
	}
	t := &table{name: path, cols: map[string]int{}, rows: recs[1:]}
	for i, c := range recs[0] {
		t.cols[c] = i
	}
	return t, nil
}

func (t *table) need(cols ...string) error {
	for _, c := range cols {
		if _, ok := t.cols[c]; !ok {
			return fmt.Errorf("%s: no column %q (is this an lnetsim results file?)", t.name, c)
		}
	}
	return nil
}

func (t *table) str(row []string, col string) string { return row[t.cols[col]] }

func (t *table) num(row []string, col string, line int) (float64, error) {
	v, err := strconv.ParseFloat(row[t.cols[col]], 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s:%d: column %s: %q is not a finite number", t.name, line+2, col, row[t.cols[col]])
	}
	return v, nil
}

// save renders p to path atomically, the format taken from the extension. src names the
// input file in errors: a figure that cannot be drawn comes from values in it.
func save(p *plot.Plot, path, src string) (err error) {
	ext := strings.TrimPrefix(filepath.Ext(path), ".")
	if ext == "" {
		return fmt.Errorf("%s: no file extension to choose a format (use .png, .svg or .pdf)", path)
	}
	_, logX := p.X.Scale.(plot.LogScale)
	widenRange(&p.X, logX)
	widenRange(&p.Y, false)
	var buf bytes.Buffer
	func() {
		// gonum's tick markers panic on ranges they cannot mark (values near the float
		// limits in a hand-edited file): report that as an error about the input.
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("%s: cannot draw %s from its values: %v", src, filepath.Base(path), r)
			}
		}()
		var wt io.WriterTo
		if wt, err = render(p, ext); err != nil {
			err = fmt.Errorf("%s: %w", path, err)
			return
		}
		if _, err = wt.WriteTo(&buf); err != nil {
			err = fmt.Errorf("%s: %w", path, err)
		}
	}()
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, buf.Bytes()); err != nil {
		var pe *fs.PathError
		var le *os.LinkError
		switch {
		case errors.As(err, &pe):
			err = pe.Err // the temporary file's name says nothing to the user
		case errors.As(err, &le):
			err = le.Err
		}
		return fmt.Errorf("%w %s: %v", ErrWrite, path, err)
	}
	return nil
}

// render draws p on a canvas of the figure's width and height plus the legend's height, the
// legend below the plot's axes: it never covers data, however many entries it has.
func render(p *plot.Plot, format string) (io.WriterTo, error) {
	legend := p.Legend
	legend.Top, legend.Left = true, true
	legend.XOffs = legendIndent
	room := vg.Length(0)
	if h := legend.Rectangle(draw.New(vgimg.New(width, height))).Size().Y; h > 0 {
		room = h + 2*legendGap
	}
	c, err := draw.NewFormattedCanvas(width, height+room, format)
	if err != nil {
		return nil, err
	}
	dc := draw.New(c)
	p.Legend = plot.NewLegend()
	p.Draw(draw.Crop(dc, 0, 0, room, 0))
	p.Legend = legend
	if room > 0 {
		below := dc
		below.Max.Y = room - legendGap
		legend.Draw(below)
	}
	return c, nil
}

// Where the legend goes below a figure's axes.
const (
	legendIndent = vg.Inch / 2 // from the left edge, about where the Y axis is
	legendGap    = 6           // points
)

// widenRange gives an axis whose data are a single value (a figure of one message, a
// constant series) a range where gonum's own widening by ±1 fails: below zero on a log axis
// (latencies under 1 us; its tick marker panics) or no change at all beyond 2^53 (an empty
// range, which its tick marker refuses with a panic). Other ranges are left to gonum.
func widenRange(a *plot.Axis, log bool) {
	v := a.Min
	if a.Max != v || math.IsInf(v, 0) || math.IsNaN(v) {
		return
	}
	switch {
	case log && v-1 <= 0:
		a.Min, a.Max = v/10, v*10
	case !log && v-1 == v:
		a.Min, a.Max = v-math.Abs(v)/10, v+math.Abs(v)/10
	}
}

func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Add(plotter.NewGrid())
	return p
}

// lineDashes tell apart series that share a colour: the first len(palette) lines are solid,
// the next dotted, then dash-dotted.
var lineDashes = [][]vg.Length{nil, {vg.Points(1.5), vg.Points(2)}, {vg.Points(6), vg.Points(2), vg.Points(1.5), vg.Points(2)}}

// seriesStyle is series i's colour and dash pattern: no two of the first
// len(palette)*len(lineDashes) series look alike.
func seriesStyle(i int) (color.Color, []vg.Length) {
	return palette[i%len(palette)], lineDashes[i/len(palette)%len(lineDashes)]
}

// seriesWidth is the width of series i of n: the first drawn widest, each next one thinner
// and on top, so series that coincide show as stripes of their colours, none hidden.
func seriesWidth(i, n int) vg.Length {
	if n < 2 {
		return vg.Points(1.5)
	}
	return vg.Points(1.5 + 3.5*float64(n-1-i)/float64(n-1))
}

// addLine draws series i of n (seriesLine) and names it in the legend.
func addLine(p *plot.Plot, name string, xys plotter.XYs, i, n int, step bool) error {
	l, err := seriesLine(xys, i, n, step)
	if err != nil {
		return err
	}
	p.Add(l)
	p.Legend.Add(name, l)
	return nil
}

// seriesLine is the line of series i of n in its seriesStyle and seriesWidth.
func seriesLine(xys plotter.XYs, i, n int, step bool) (*plotter.Line, error) {
	l, err := plotter.NewLine(xys)
	if err != nil {
		return nil, err
	}
	l.Color, l.Dashes = seriesStyle(i)
	l.Width = seriesWidth(i, n)
	if step {
		l.StepStyle = plotter.PostStep
	}
	return l, nil
}

// faultDashes and faultGreys style the fault markers by kind, in the order kinds first
// appear: dash pattern first, then shade, so each kind has its own legend entry and look.
var (
	faultDashes = [][]vg.Length{
		{vg.Points(5), vg.Points(3)}, {vg.Points(1), vg.Points(2.5)}, {vg.Points(9), vg.Points(3), vg.Points(1.5), vg.Points(3)},
		{vg.Points(2.5), vg.Points(2.5)}, {vg.Points(12), vg.Points(4)}, {vg.Points(6), vg.Points(2), vg.Points(1.5), vg.Points(2), vg.Points(1.5), vg.Points(2)},
	}
	faultGreys = []color.Gray{{Y: 40}, {Y: 120}, {Y: 170}}
)

// faultStyle is the marker style of the k-th fault kind: the first 18 all differ.
func faultStyle(k int) (color.Color, []vg.Length) {
	return faultGreys[k/len(faultDashes)%len(faultGreys)], faultDashes[k%len(faultDashes)]
}

// faultMarkers draws a vertical line at each fault of runDir's faults.csv (if any), spanning
// [ymin, ymax], each kind in its faultStyle and named once in the legend. The rows that
// report a rule's hits at the end of the run (kind "<action>_hits") are not faults.
func faultMarkers(p *plot.Plot, runDir string, ymin, ymax float64) error {
	t, err := readTable(filepath.Join(runDir, record.FaultsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := t.need("time_ns", "kind"); err != nil {
		return err
	}
	kinds := map[string]int{} // kind -> order of first appearance (lookups only)
	for i, row := range t.rows {
		kind := t.str(row, "kind")
		if strings.HasSuffix(kind, "_hits") {
			continue // a rule's hit count at the end of the run, not a fault
		}
		at, err := t.num(row, "time_ns", i)
		if err != nil {
			return err
		}
		l, err := plotter.NewLine(plotter.XYs{{X: at / 1e9, Y: ymin}, {X: at / 1e9, Y: ymax}})
		if err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
		k, seen := kinds[kind]
		if !seen {
			k = len(kinds)
			kinds[kind] = k
		}
		l.Color, l.Dashes = faultStyle(k)
		l.Width = vg.Points(1.2)
		p.Add(l)
		if !seen {
			p.Legend.Add("fault: "+kind, l)
		}
	}
	return nil
}

// healthSeries reads runDir's health.csv: one step series per node and NI or peer NI
// (starting from its first old value at 0 s), their keys, and the file's name for errors.
func healthSeries(runDir string) (map[string]plotter.XYs, []string, string, error) {
	t, err := readTable(filepath.Join(runDir, record.HealthFile))
	if err != nil {
		return nil, nil, "", err
	}
	if err := t.need("time_ns", "node", "kind", "nid", "old", "new"); err != nil {
		return nil, nil, "", err
	}
	series := map[string]plotter.XYs{}
	var keys []string
	for i, row := range t.rows {
		if k := t.str(row, "kind"); k != "ni" && k != "peer_ni" {
			continue // NI status edges share the file
		}
		key := fmt.Sprintf("%s %s %s", t.str(row, "node"), strings.ReplaceAll(t.str(row, "kind"), "_", " "), t.str(row, "nid"))
		at, err := t.num(row, "time_ns", i)
		if err != nil {
			return nil, nil, "", err
		}
		v, err := t.num(row, "new", i)
		if err != nil {
			return nil, nil, "", err
		}
		if _, ok := series[key]; !ok {
			old, err := t.num(row, "old", i)
			if err != nil {
				return nil, nil, "", err
			}
			keys = append(keys, key)
			series[key] = plotter.XYs{{X: 0, Y: old}}
		}
		series[key] = append(series[key], plotter.XY{X: at / 1e9, Y: v})
	}
	if len(keys) == 0 {
		return nil, nil, "", fmt.Errorf("%s: no health changes: %w", t.name, ErrNothingToPlot)
	}
	return series, keys, t.name, nil
}

// Health draws every health value series of runDir's health.csv (one line per node and NI
// or peer NI) over virtual time, with fault markers, to out.
func Health(runDir, title, out string) error {
	series, keys, name, err := healthSeries(runDir)
	if err != nil {
		return err
	}
	sort.Strings(keys)
	p := newPlot(title, "virtual time (s)", "health value (0-1000)")
	p.Y.Min, p.Y.Max = 0, 1050
	xmax := 0.0
	for _, k := range keys {
		xmax = max(xmax, series[k][len(series[k])-1].X)
	}
	if sum, err := record.ReadSummary(runDir); err == nil {
		if d, err := sim.ParseTime(sum.Duration); err == nil {
			xmax = max(xmax, d.Seconds()) // hold the last values to the end of the run
		}
	}
	// Many series (a large cluster): draw those that fell lowest (then changed most), and the
	// mean of the others.
	kept, other, folded := foldSeries(keys, series, func(k string) float64 {
		return float64(fallScore(series[k]))
	}, maxSeries)
	names := slices.Clone(kept)
	if folded > 0 {
		name := fmt.Sprintf("mean of the %d other series", folded)
		series[name], names = other, append(names, name)
	}
	for i, k := range names {
		xys := series[k]
		xys = append(xys, plotter.XY{X: xmax, Y: xys[len(xys)-1].Y}) // hold the last value
		if err := addLine(p, k, xys, i, len(names), true); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	if err := faultMarkers(p, runDir, 0, 1000); err != nil {
		return err
	}
	return save(p, out, name)
}

// Throughput draws delivered payload per bin of virtual time from messages.csv, in Gb/s,
// with fault markers: writes (PUT) and reads (the REPLY that carries a GET's data) alike.
func Throughput(runDir, title, out string, bins int) error {
	xys, src, err := throughputSeries(runDir, bins)
	if err != nil {
		return err
	}
	p := newPlot(title, "virtual time (s)", "delivered (Gb/s)")
	if err := addLine(p, "PUT and REPLY payload (writes and reads)", xys, 0, 1, false); err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	ymax := 0.0
	for _, xy := range xys {
		ymax = max(ymax, xy.Y)
	}
	if err := faultMarkers(p, runDir, 0, ymax); err != nil {
		return err
	}
	p.X.Min = min(p.X.Min, 0) // as NIThroughput
	return save(p, out, src)
}

// throughputSeries is the throughput figure's line: for each of bins equal bins of virtual
// time up to the last message's end, the payload of the messages completed OK in it, in Gb/s
// (X the bin's centre in seconds). Payload is what PUTs and REPLYs carry: a GET asks for
// data and an ACK confirms it, neither carries any. It also returns the file read.
func throughputSeries(runDir string, bins int) (plotter.XYs, string, error) {
	t, err := readTable(filepath.Join(runDir, record.MessagesFile))
	if err != nil {
		return nil, "", err
	}
	if err := t.need("size", "end_ns", "hstatus", "type"); err != nil {
		return nil, "", err
	}
	if bins < 1 || bins > MaxBins {
		return nil, "", fmt.Errorf("%d time bins: from 1 to %d", bins, MaxBins)
	}
	var ends, sizes []float64
	span := 0.0
	for i, row := range t.rows {
		end, err := t.num(row, "end_ns", i)
		if err != nil {
			return nil, "", err
		}
		if end < 0 {
			return nil, "", fmt.Errorf("%s:%d: column end_ns: negative time %s", t.name, i+2, t.str(row, "end_ns"))
		}
		span = max(span, end)
		if typ := t.str(row, "type"); t.str(row, "hstatus") != "OK" || typ == "ACK" || typ == "GET" {
			continue
		}
		size, err := t.num(row, "size", i)
		if err != nil {
			return nil, "", err
		}
		ends, sizes = append(ends, end), append(sizes, size)
	}
	if len(ends) == 0 || span == 0 {
		return nil, "", fmt.Errorf("%s: no completed messages: %w", t.name, ErrNothingToPlot)
	}
	width := span / float64(bins)
	if !(width > 0) {
		return nil, "", fmt.Errorf("%s: messages end within %g ns: too short a time to bin", t.name, span)
	}
	xys := make(plotter.XYs, bins)
	for i := range xys {
		xys[i].X = (float64(i) + 0.5) * width / 1e9
	}
	for i, end := range ends {
		b := bins - 1
		if f := end / width; f < float64(bins-1) {
			b = int(f)
		}
		xys[b].Y += sizes[i] * 8 / (width / 1e9) / 1e9
	}
	return xys, t.name, nil
}

// NIThroughput draws each NI's send rate over virtual time from timeseries.csv (metric
// ni_tx_bps), one line per node and NI that sent anything, with fault markers: where traffic
// goes when a rail fails and comes back.
func NIThroughput(runDir, title, out string) error {
	t, err := readTable(filepath.Join(runDir, record.TimeseriesFile))
	if err != nil {
		return err
	}
	if err := t.need("time_ns", "node", "metric", "key", "value"); err != nil {
		return err
	}
	series := map[string]plotter.XYs{}
	total := map[string]float64{}
	var keys []string
	ymax := 0.0
	for i, row := range t.rows {
		if t.str(row, "metric") != "ni_tx_bps" {
			continue
		}
		at, err := t.num(row, "time_ns", i)
		if err != nil {
			return err
		}
		v, err := t.num(row, "value", i)
		if err != nil {
			return err
		}
		key := t.str(row, "node") + " " + t.str(row, "key")
		if _, ok := series[key]; !ok {
			keys = append(keys, key)
		}
		series[key] = append(series[key], plotter.XY{X: at / 1e9, Y: v / 1e9})
		total[key] += v
		ymax = max(ymax, v/1e9)
	}
	sort.Strings(keys)
	p := newPlot(title, "virtual time (s)", "sent by the NI (Gb/s)")
	var busy []string
	for _, k := range keys {
		if total[k] != 0 {
			busy = append(busy, k)
		}
	}
	// Many NIs (a large cluster): draw the busiest, and the mean of the others.
	kept, other, folded := foldSeries(busy, series, func(k string) float64 { return total[k] }, maxSeries)
	if folded > 0 {
		name := fmt.Sprintf("mean of the %d other NIs", folded)
		series[name], kept = other, append(kept, name)
	}
	drawn := 0
	for _, k := range kept {
		if err := addLine(p, k, series[k], drawn, len(kept), true); err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
		drawn++
	}
	if drawn == 0 {
		return fmt.Errorf("%s: no NI sent anything (or no ni_tx_bps samples): %w", t.name, ErrNothingToPlot)
	}
	if err := faultMarkers(p, runDir, 0, ymax); err != nil {
		return err
	}
	// Samples start one period in; the axis starts at 0 as the health figure's does, which
	// also gives gonum's ticker round labels (0, 40, 80 rather than 25.00, 75.00).
	p.X.Min = min(p.X.Min, 0)
	return save(p, out, t.name)
}

// LatencyCDF draws the empirical CDF of completion latency per message type (successful
// messages only) from messages.csv, with a logarithmic latency axis.
func LatencyCDF(runDir, title, out string) error {
	t, err := readTable(filepath.Join(runDir, record.MessagesFile))
	if err != nil {
		return err
	}
	if err := t.need("type", "latency_ns", "hstatus"); err != nil {
		return err
	}
	byType := map[string][]float64{}
	for i, row := range t.rows {
		if t.str(row, "hstatus") != "OK" {
			continue
		}
		v, err := t.num(row, "latency_ns", i)
		if err != nil {
			return err
		}
		byType[t.str(row, "type")] = append(byType[t.str(row, "type")], max(v, 1)/1e3)
	}
	if len(byType) == 0 {
		return fmt.Errorf("%s: no completed messages: %w", t.name, ErrNothingToPlot)
	}
	types := make([]string, 0, len(byType))
	for k := range byType {
		types = append(types, k)
	}
	sort.Strings(types)
	p := newPlot(title, "completion latency (us, log scale)", "fraction of messages")
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Min, p.Y.Max = 0, 1
	for i, typ := range types {
		v := byType[typ]
		sort.Float64s(v)
		xys := make(plotter.XYs, len(v))
		for j, x := range v {
			xys[j] = plotter.XY{X: x, Y: float64(j+1) / float64(len(v))}
		}
		if err := addLine(p, fmt.Sprintf("%s (n=%d)", typ, len(v)), xys, i, len(types), true); err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
	}
	return save(p, out, t.name)
}
