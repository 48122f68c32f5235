# html_lib.sh - the report --html tests' page probe (sourced after e2e_lib.sh or
# record_lib.sh): CHROMIUM (the test is skipped, 77, without one) and html_probe.
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
[ -n "$CHROMIUM" ] || { echo "SKIP: no chromium (tools/install-deps.sh installs it)"; exit 77; }
# html_probe PAGE: PAGE loaded in headless chromium with the probe, probe_tail.js before
# </body> (and probe_head.js after <head> when there is one): the <pre id="probe"> the
# probe adds, in probe.txt. Fails when chromium fails, the probe did not run or
# chromium's log has a console error.
html_probe() {
	if [ -f probe_head.js ]; then
		awk 'FNR == NR { h = h $0 "\n"; next } /<head>/ { print; printf "%s", h; next } { print }' \
			probe_head.js "$1" >t1.html
	else
		cp "$1" t1.html
	fi
	awk 'FNR == NR { t = t $0 "\n"; next } /<\/body>/ { printf "%s", t } { print }' probe_tail.js t1.html >t.html
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$T/prof" \
		--enable-logging=stderr --v=0 --dump-dom "file://$T/t.html" >dom.html 2>chrome.err ||
		fail "chromium failed on $1: $(tail -5 chrome.err)"
	sed -n '/<pre id="probe">/,/<\/pre>/p' dom.html >probe.txt
	[ -s probe.txt ] || fail "the probe did not run on $1: $(grep -i 'error\|uncaught' chrome.err | head -5)"
	grep -i 'Uncaught\|SyntaxError' chrome.err && fail "console errors in chromium's log on $1"
	return 0
}
