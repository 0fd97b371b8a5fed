#!/usr/bin/env python3
"""The measurements of bench/studio.sh: studio_bench.py URL RENDER_STORIES FOLDER COUNT."""
import json, os, random, statistics, subprocess, sys, tempfile, time

url, binary, folder, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
board = os.path.join(folder, "demo.json")
driver = subprocess.Popen(["python3", os.path.join(os.path.dirname(__file__), "..", "Tests", "Support", "Python", "studio_browser.py"), url],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def command(**kw):
    driver.stdin.write(json.dumps(kw) + "\n")
    driver.stdin.flush()
    answer = json.loads(driver.stdout.readline())
    if "fatal" in answer:
        raise SystemExit("browser: " + answer["fatal"])
    return answer


def js(expression, awaiting=False):
    return command(op="js", expr=expression, **{"await": awaiting})["value"]


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))]


def line(label, values, unit="ms"):
    print(f"{label:<44} p50 {percentile(values, 50):7.1f} {unit}  p95 {percentile(values, 95):7.1f} {unit}"
          f"  (min {min(values):.1f}, max {max(values):.1f}, n={len(values)})")


assert json.loads(driver.stdout.readline()).get("ready")
frames = js("lastFrame") + 1
fps = js("fps")
# Timed in the page: the request, the frame drawn, its transfer and the picture decoded.
js("""window.benchFrame = async (n, half) => {
  const t0 = performance.now();
  const r = await fetch(api('/api/frame', { n, half: half ? 1 : 0 }));
  const blob = await r.blob();
  const img = new Image();
  img.src = URL.createObjectURL(blob);
  await img.decode();
  URL.revokeObjectURL(img.src);
  return performance.now() - t0;
}; true""")
rng = random.Random(31)
# Warm: the server has drawn a frame, the code paths are paged in.
js("benchFrame(0, false)", True)
js("benchFrame(%d, false)" % (frames // 2), True)

targets = [rng.randrange(frames) for _ in range(count)]
on_demand = [js("benchFrame(%d, false)" % n, True) for n in targets]
line("frame on demand, random frames (seeks)", on_demand)

# Play forward: one loop step a frame.
start = rng.randrange(frames - count)
forward = [js("benchFrame(%d, false)" % n, True) for n in range(start, start + count)]
line("frame on demand, playing forward", forward)

# A drag: the scrubber moves a few frames at a time, forward then back.
position, drag = rng.randrange(frames), []
for i in range(count):
    position = max(0, min(frames - 1, position + rng.choice([2, 3, 4, 5, -3, 6])))
    drag.append(js("benchFrame(%d, true)" % position, True))
line("half-size drag frame (360x640)", drag)

# The same frames as separate processes.
scratch = tempfile.mkdtemp(dir=folder)
renders, stills = [], []
for n in targets[: max(5, count // 4)]:
    t0 = time.perf_counter()
    subprocess.run([binary, "render", board, "--frames", str(n), "--output", scratch, "--quiet"], check=True)
    renders.append(1000 * (time.perf_counter() - t0))
    t0 = time.perf_counter()
    subprocess.run([binary, "still", board, "--page", "0", "--time", "%.3f" % (n / fps), "--output", scratch + "/still.png"],
                   check=True, stdout=subprocess.DEVNULL)
    stills.append(1000 * (time.perf_counter() - t0))
line("same frames: render --frames N (a process)", renders)
line("same times: still --page 0 --time T (a process)", stills)

# From saving the storyboard to the new frame in the page: the frame shown is at 1 s, and each
# edit changes the first story's media (beach ↔ forest), saved as editors do (rename over).
js("goTo(30); true")
command(op="wait", expr="document.body.dataset.shown === '30'", timeout=30)
original = open(board).read()
saves = []
for i in range(max(10, count // 2)):
    text = original if i % 2 else original.replace('"beach.mp4"', '"forest.mp4"')
    version = js("document.body.dataset.shownVersion")
    with open(board + ".new", "w") as f:
        f.write(text)
    t0 = time.perf_counter()
    os.replace(board + ".new", board)
    answer = command(op="wait", expr="document.body.dataset.shownVersion !== '%s' && document.body.dataset.shown === '30'" % version,
                     timeout=10)
    if not answer["value"]:
        raise SystemExit("an edit never reached the page")
    saves.append(1000 * (time.perf_counter() - t0))
    time.sleep(0.2)
line("save → new frame in the page", saves)
errors = command(op="errors")["value"]
if errors:
    print("console errors:", errors)
command(op="quit")
