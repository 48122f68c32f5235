#!/bin/bash
# memprof report --html's data-objects section (issue 26), checked in headless chromium:
#  - alloc_prog types under record -d --alloc (page faults with data addresses): the global
#    gpair (struct pagepair, 12288 bytes) is an object of kind global with 3 samples, and
#    its fields are struct pagepair's members a, b and in[10].y, one fault each; a click on
#    gpair's row narrows the fields table to those three and the code table to the three
#    source lines of main that touch them (alloc_prog.c's), a click on one of those
#    highlights main in the flame graph;
#  - alloc_prog heaptypes: the members of its struct rec array (a typed malloc) are fields
#    of the array's allocation site, with report --mem-mode --sort alloc,typeoff's counts;
#  - alloc_prog pages: the malloc'ed 128-page block is the heap object "alloc_block
#    alloc_prog.c:LINE" (524288 bytes) with the samples report --mem-mode --sort alloc gives,
#    all of them in touch_pages' code;
#  - falseshare under c2c record --sim --sim-alloc (skipped without mpsim): the counters'
#    line is a shared line of the heap object "main falseshare.c:LINE", written by 2
#    threads; the page loads without console errors;
#  - a recording without data addresses has no section.
. "$(dirname "$0")/record_lib.sh"
: "${PROG:?set PROG}"
. "$(dirname "$0")/html_lib.sh"
SRC=$E2E/../alloc_prog.c
lb=$(grep -n ALLOC_BLOCK_LINE "$SRC" | cut -d: -f1)

# the probe: the data section's tables as text, after a click on the gpair row
cat >probe_tail.js <<'JS'
<script>
(function () {
	var out = [], errs = [];
	var rows = function (id) {
		return Array.prototype.map.call(document.querySelectorAll("#" + id + " tbody tr"), function (r) {
			return Array.prototype.map.call(r.cells, function (c) { return c.textContent; }).join("|");
		});
	};
	out.push("hidden " + document.getElementById("data").hidden);
	out.push("info " + document.getElementById("dinfo").textContent);
	rows("dobj").forEach(function (r) { out.push("obj " + r); });
	rows("dfield").forEach(function (r) { out.push("field " + r); });
	rows("dline").forEach(function (r) { out.push("line " + r); });
	rows("dcode").forEach(function (r) { out.push("code " + r); });
	var g = Array.prototype.filter.call(document.querySelectorAll("#dobj tbody tr"), function (r) {
		return /^gpair /.test(r.cells[0].textContent);
	})[0];
	if (g) g.dispatchEvent(new MouseEvent("click", { bubbles: true }));
	rows("dfield").forEach(function (r) { out.push("gfield " + r); });
	out.push("fsel " + document.getElementById("dfsel").textContent);
	rows("dcode").forEach(function (r) { out.push("gcode " + r); });
	out.push("csel " + document.getElementById("dcsel").textContent);
	var c = document.querySelector("#dcode tbody tr");
	if (c) c.dispatchEvent(new MouseEvent("click", { bubbles: true }));
	out.push("csearch " + document.getElementById("search").value);
	var pre = document.createElement("pre");
	pre.id = "probe";
	pre.textContent = "\n" + out.join("\n") + "\n";
	document.body.appendChild(pre);
})();
</script>
JS

# globals and their fields
"$MEMPROF" record -q -e page-faults -c 1 -d --alloc -o ty.data -- "$PROG" types >/dev/null 2>&1 || fail "record types"
"$MEMPROF" report -i ty.data --html ty.html 2>err || fail "report --html: $(cat err)"
grep -q 'with its data objects' err || fail "no data objects said: $(cat err)"
html_probe ty.html
grep -q '^hidden false$' probe.txt || fail "the section is hidden: $(cat probe.txt)"
grep -q '^info [0-9]* samples of page-faults with data addresses$' probe.txt || fail "info: $(grep ^info probe.txt)"
grep -q '^obj gpair (alloc_prog)|global|12,288|[0-9.]*|3|3|0|1$' probe.txt || fail "gpair: $(grep '^obj' probe.txt)"
for f in '+0x0 (a)' '+0x1040 (b)' '+0x20a8 (in[10].y)'; do
	grep -qF "gfield gpair (alloc_prog)|struct pagepair $f|" probe.txt || fail "gpair's field $f: $(grep '^gfield' probe.txt)"
done
[ "$(grep -c '^gfield ' probe.txt)" = 3 ] || fail "the click did not narrow the fields to gpair's: $(grep '^gfield' probe.txt)"
grep -q '^fsel of gpair (alloc_prog)$' probe.txt || fail "fields title: $(grep '^fsel' probe.txt)"
# the code that touched gpair: main's three lines, one fault each (the lines from the source)
for m in 'gpair.a)\[0\] = 1' 'gpair.b)\[8\] = 2' 'gpair.in)\[10\].y = 3'; do
	ln=$(grep -n "$m" "$SRC" | cut -d: -f1)
	grep -q "^gcode main|alloc_prog.c:$ln|alloc_prog|gpair (alloc_prog)|[0-9.]*|1|1\$" probe.txt ||
		fail "gpair's code line $ln: $(grep '^gcode' probe.txt)"
done
[ "$(grep -c '^gcode ' probe.txt)" = 3 ] || fail "the click did not narrow the code to gpair's: $(grep '^gcode' probe.txt)"
grep -q '^csel that touched gpair (alloc_prog)$' probe.txt || fail "code title: $(grep '^csel' probe.txt)"
grep -q '^csearch \^main\$$' probe.txt || fail "a code line's click searches $(grep '^csearch' probe.txt)"

# the heap block under its allocation site, as report --sort alloc counts it
"$MEMPROF" record -q -e page-faults -c 1 -d --alloc -o pg.data -- "$PROG" pages >/dev/null 2>&1 || fail "record pages"
n=$("$MEMPROF" report -i pg.data --mem-mode --sort alloc --csv 2>/dev/null |
	awk -F, -v s="alloc_block alloc_prog.c:$lb" '$4 == s { print $2 }')
[ -n "$n" ] && [ "$n" -ge 127 ] || fail "report --sort alloc: '$n' samples under alloc_block"
"$MEMPROF" report -i pg.data --html pg.html 2>err || fail "report --html pages: $(cat err)"
html_probe pg.html
grep -q "^obj alloc_block alloc_prog.c:$lb|heap|524,288|[0-9.]*|$n|$n|0|1\$" probe.txt ||
	fail "the heap block ($n samples): $(grep '^obj' probe.txt)"
# its code: touch_pages' samples, as many as the block's
cn=$(awk -F'|' -v o="alloc_block alloc_prog.c:$lb" '/^code / && $4 == o { sub(/^code /, "", $1); gsub(",", "", $6)
	if ($1 == "touch_pages") s += $6; else other = 1 }
	END { print other ? -1 : s + 0 }' probe.txt)
[ "$cn" = "$n" ] || fail "the heap block's code: $cn samples in touch_pages (want $n): $(grep '^code' probe.txt | head -5)"

# heap objects' fields: alloc_prog heaptypes' struct rec array, typed through the pointer
# its malloc's result goes to: the members with report --sort typeoff's counts
"$MEMPROF" record -q -e page-faults -c 1 -d --alloc -o ht.data -- "$PROG" heaptypes >/dev/null 2>&1 ||
	fail "record heaptypes"
"$MEMPROF" report -i ht.data --mem-mode --sort alloc,typeoff --csv 2>/dev/null | grep ',struct rec ' >ht.csv
[ -s ht.csv ] || fail "report --sort typeoff: no struct rec rows"
"$MEMPROF" report -i ht.data --html ht.html 2>err || fail "report --html heaptypes: $(cat err)"
html_probe ht.html
while IFS=, read -r ev n pct site field; do
	grep -qF "field $site|$field|" probe.txt && grep -F "field $site|$field|" probe.txt | grep -q "|$n|[0-9,]*\$" ||
		fail "heap field '$site' '$field' ($n samples): $(grep '^field' probe.txt)"
done <ht.csv

# no data addresses: no section
"$MEMPROF" record -q -e page-faults -c 1 -o nd.data -- "$PROG" types >/dev/null 2>&1 || fail "record without -d"
"$MEMPROF" report -i nd.data --html nd.html 2>err || fail "report --html without data: $(cat err)"
grep -q 'with its data objects' err && fail "data objects said without data addresses"
html_probe nd.html
grep -q '^hidden true$' probe.txt || fail "a section without data addresses: $(head -3 probe.txt)"

# sharing: falseshare's counters under the simulator
if [ -n "${MEMPROF_VGTOOL:-}" ] && [ -x "$MEMPROF_VGTOOL" ]; then
	export MEMPROF_VGTOOL
	for try in 1 2 3 4; do
		"$MEMPROF" c2c record --sim --sim-alloc -c 97 -o fs.data -- "$KERNELS/falseshare" -T 2 -d 8 -i 100000 \
			>rec.out 2>rec.err || fail "c2c record --sim: $(cat rec.err)"
		"$MEMPROF" c2c report -i fs.data --csv -c tid >fs.csv || fail "c2c report --csv"
		[ "$(awk -F, '$1 == 0 && $12 > 0' fs.csv | wc -l)" -gt 0 ] && break
	done
	cl=$(awk -F, '$1 == 0 { print $2; exit }' fs.csv)
	site=$(awk -F, '$1 == 0 { print $4; exit }' fs.csv | sed 's/+0x[0-9a-f]*$//')
	"$MEMPROF" report -i fs.data --html fs.html 2>err || fail "report --html falseshare: $(cat err)"
	html_probe fs.html
	printf -v pcl '0x%016x' "$cl"
	grep -q "^line $pcl|$site|[0-9,]*|[0-9,]*|[0-9]*|2|written by 2 threads\$" probe.txt ||
		fail "the counters' line $pcl of $site: $(grep '^line' probe.txt | head -5)"
else
	echo "note: no mpsim: the sharing part is not run"
fi
echo ok
