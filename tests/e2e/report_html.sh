# memprof report --html: one self-contained page, checked in headless chromium. On a
# --call-graph dwarf recording of matmul (no frame pointers: the chains are unwound), the
# page loads with no console error and no network access, has a frame for mm_naive whose
# title gives its inclusive estimated count (the samples whose chain holds it),
# a click on it zooms (the flame box names it, its frame is marked and full width), a
# search highlights the matching frames, the caller view puts mm_naive on the top row, and
# the hot-symbol table lists it with report's self share. Then a simulated recording
# (record --sim -g, no PMU): the L1D_REPL flame graph, heat-coloured by L1D_REPL per
# instructions, gives mm_naive its count from the chains.
. "$(dirname "$0")/record_lib.sh"
. "$(dirname "$0")/html_lib.sh"
"$MEMPROF" record -q -e cpu-clock -c 500000 --call-graph dwarf -o D "$KERNELS/matmul" -r 3 >out 2>err ||
	fail "record: $(cat err)"
"$MEMPROF" report -i D --html page.html >out 2>err || fail "report --html: $(cat err)"
[ -s page.html ] || fail "no page written"
grep -q 'wrote the flame graph' err || fail "no summary line: $(cat err)"
# self-contained: no external script, style, image or link
grep -Eiq '<(script|link|img)[^>]+(src|href)=|https?://' page.html &&
	fail "the page refers to something outside it: $(grep -Eio '(src|href)=[^ >]*|https?://[^ "]*' page.html | head -3)"
# mm_naive's inclusive count (its frame's width): the periods of the samples whose chain
# holds it, from memprof script (whose chains e2e_script_callchains checks against perf);
# and its self count from memprof report
"$MEMPROF" script -i D --no-inline >s.txt 2>err || fail "script: $(cat err)"
want=$(awk 'BEGIN { RS = "" } / mm_naive\+/ { split($0, l, "\n"); n = split(l[1], h, " "); s += h[n - 1] } END { print s + 0 }' s.txt)
[ "$want" -gt 0 ] || fail "no sample in mm_naive: $(head -20 s.txt)"
"$MEMPROF" report -q -i D --csv --sort sym,period >rep.csv 2>err || fail "report --csv: $(cat err)"
self=$(awk -F, '$2 == "mm_naive" { print $4 }' rep.csv)
[ -n "$self" ] || fail "no mm_naive in report: $(head -5 rep.csv)"

# the probe: error hooks first in <head>, the checks after the page's own script
cat >probe_head.js <<'JS'
<script>window.__errs = []; window.addEventListener("error", function (e) { window.__errs.push(String(e.message)); });
(function () { var ce = console.error; console.error = function () { window.__errs.push(Array.prototype.join.call(arguments, " ")); ce.apply(console, arguments); }; })();</script>
JS
cat >probe_tail.js <<'JS'
<script>
(function () {
	var out = [], q = function (s) { return document.querySelectorAll(s); };
	var fr = Array.prototype.filter.call(q("#flame .f"), function (d) { return d.getAttribute("data-fn") === "mm_naive"; });
	out.push("frames " + fr.length);
	out.push("title " + (fr[0] ? fr[0].title.split("\n")[1] : "none"));
	out.push("count " + (fr[0] ? fr[0].getAttribute("data-count") : "none"));
	out.push("colour " + document.getElementById("colour").value);
	out.push("legend " + document.getElementById("legend").textContent);
	if (fr[0]) fr[0].dispatchEvent(new MouseEvent("click", { bubbles: true }));
	var z = q("#flame .f.zoomed")[0];
	out.push("zoom " + document.getElementById("flame").getAttribute("data-zoom"));
	out.push("zoomed " + (z ? z.getAttribute("data-fn") + " " + z.style.width : "none"));
	document.getElementById("reset").click();
	var s = document.getElementById("search");
	s.value = "^mm_";
	s.dispatchEvent(new Event("input"));
	var m = Array.prototype.map.call(q("#flame .f.match"), function (d) { return d.getAttribute("data-fn"); });
	out.push("matches " + m.sort().join(","));
	out.push("matched " + document.getElementById("matched").textContent);
	var v = document.getElementById("view");
	v.value = "callers";
	v.dispatchEvent(new Event("change"));
	var top = Array.prototype.filter.call(q("#flame .f"), function (d) { return d.style.top === "0px"; })
		.sort(function (a, b) { return b.getAttribute("data-count") - a.getAttribute("data-count"); });
	out.push("callertop " + (top[0] ? top[0].getAttribute("data-fn") : "none"));
	var row = Array.prototype.filter.call(q("#hot tbody tr"), function (r) { return r.cells[0].textContent === "mm_naive"; })[0];
	out.push("hot " + (row ? row.cells[2].textContent : "none"));
	out.push("errors " + window.__errs.length + " " + window.__errs.join(" | "));
	var pre = document.createElement("pre");
	pre.id = "probe";
	pre.textContent = "\n" + out.join("\n") + "\n";
	document.body.appendChild(pre);
})();
</script>
JS
html_probe page.html
get() { sed -n "s/^$1 //p" probe.txt; }
grep -i 'Uncaught\|SyntaxError' chrome.err && fail "console errors in chromium's log"
[ "$(get errors)" = "0 " ] || [ "$(get errors)" = "0" ] || fail "console errors: $(get errors)"
[ "$(get frames)" -ge 1 ] || fail "no mm_naive frame: $(cat probe.txt)"
[ "$(get count)" = "$want" ] || fail "mm_naive frame count $(get count), report says $want"
comma=$(echo "$want" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')
get title | grep -q "^cpu-clock: $comma (" || fail "title does not give the count $comma: $(get title)"
[ "$(get zoom)" = "mm_naive" ] || fail "click did not zoom: $(cat probe.txt)"
[ "$(get zoomed)" = "mm_naive 100%" ] || fail "zoomed frame: $(get zoomed)"
get matches | grep -q 'mm_blocked.*mm_naive.*mm_transposed' || fail "search: $(get matches)"
get matches | tr ',' '\n' | grep -qv '^mm_' && fail "search highlights other frames: $(get matches)"
get matched | grep -q '^matched: [0-9.]*%$' || fail "no matched share: $(get matched)"
[ "$(get callertop)" = "mm_naive" ] || fail "caller view: top row starts with $(get callertop)"
# the table's self share = report's share of mm_naive
share=$(get hot)
rshare=$(awk -F, '$2 == "mm_naive" { printf "%.2f", $5 }' rep.csv)
[ "$share" = "$rshare" ] || fail "hot table says $share% for mm_naive, report $rshare%"
[ "$(get colour)" = name ] || fail "one event, yet colour $(get colour)"

# a simulated recording (no PMU) with -g: the flame graph of L1D_REPL, coloured by L1D_REPL
# per instructions, mm_naive's frame with its count from the chains
command -v valgrind >/dev/null || { echo "SKIP: no valgrind for the simulated part"; exit 77; }
"$MEMPROF" record -q --sim -g -e L1D_REPL,instructions -o S "$KERNELS/matmul" -N 64 >out 2>err ||
	fail "record --sim -g: $(cat err)"
"$MEMPROF" report -i S --html sim.html >out 2>err || fail "report --html (sim): $(cat err)"
grep -q 'SIMULATED' sim.html || fail "the simulated recording's banner is missing"
"$MEMPROF" script -i S --no-inline >ss.txt 2>err || fail "script -i S: $(cat err)"
swant=$(awk 'BEGIN { RS = "" } / L1D_REPL:/ && / mm_naive\+/ { split($0, l, "\n"); n = split(l[1], h, " "); s += h[n - 1] } END { print s + 0 }' ss.txt)
html_probe sim.html
[ "$(get errors)" = "0 " ] || [ "$(get errors)" = "0" ] || fail "sim page: console errors: $(get errors)"
[ "$(get count)" = "$swant" ] || fail "sim page: mm_naive L1D_REPL $(get count), the chains say $swant"
[ "$(get colour)" = "r0,1" ] || fail "sim page: not coloured by L1D_REPL per instructions: $(get colour)"
get legend | grep -q 'L1D_REPL per instructions' || fail "sim page: legend $(get legend)"
echo "OK: page loads clean, mm_naive $want ($share%), zoom, search, caller view; sim page: L1D_REPL $swant, heat by L1D_REPL per instructions"
