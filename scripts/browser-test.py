"""The page of `morris serve` in a real headless Chromium (Debian's, driven
through Debian's chromedriver by selenium): the start of six loads and reads
"Draw"; a move clicked in the list and one played by clicks on the board
show the new position, its value and its moves as the API gives them; back
returns; a Sanmill FEN pasted into a standard folder is shown; the database
answers a move when played against. Screenshots are kept in OUT.

    python3 scripts/browser-test.py MORRIS OUT   (scripts/browser-test.sh runs it)
"""

import json
import os
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

MORRIS, OUT = sys.argv[1], sys.argv[2]
# A 3-3 position of the standard game as Sanmill writes it.
FEN = "O@O*****/********/@*@*O*** w m s 3 0 3 0 0 0 -1 -1 -1 -1 0 0 1"


def run(*args):
    subprocess.run([MORRIS, *args, "--quiet"], check=True, stdout=subprocess.DEVNULL)


def api(base, path, **params):
    with urllib.request.urlopen(f"{base}{path}?{urllib.parse.urlencode(params)}") as r:
        return json.load(r)


def main():
    os.makedirs(OUT, exist_ok=True)
    work = tempfile.mkdtemp(prefix="morris-browser-")
    six, std = os.path.join(work, "six"), os.path.join(work, "std")
    mora, rule = os.path.join(work, "mora"), os.path.join(work, "six-20")
    run("--variant", "six", "solve", "--all", "--db", six)
    run("solve", "--sectors", "3-3", "--db", std)
    run("--variant", "morabaraba", "solve", "--sectors", "3-3", "--db", mora)
    run("--variant", "six", "--n-move", "20", "solve", "--all", "--db", rule)
    server = subprocess.Popen(
        [MORRIS, "serve", "--db", six, "--db", std, "--db", mora, "--db", rule,
         "--addr", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        first = server.stdout.readline()
        base = first.split(" at ")[1].split("/ ")[0]
        print(f"browser-test: {first.strip()}")
        browse(base, work)
    finally:
        server.terminate()
        server.wait(timeout=10)


def browser(work):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in [
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1200,900",
        f"--user-data-dir={os.path.join(work, 'chromium')}",
    ]:
        options.add_argument(flag)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def browse(base, work):
    driver = browser(work)
    try:
        check_page(driver, base)
    except Exception:
        driver.save_screenshot(os.path.join(OUT, "failed.png"))
        print("browser-test: the page at failure:", driver.find_element(By.TAG_NAME, "body").text)
        raise
    finally:
        driver.quit()


def settled(driver):
    """Waits until the page has shown an answer or an error; returns which."""
    WebDriverWait(driver, 20).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-state") in ("ready", "error")
    )
    return driver.find_element(By.TAG_NAME, "body").get_attribute("data-state")


def ready(driver):
    """Waits until the page shows an answer; returns the position shown."""
    state = settled(driver)
    assert state == "ready", driver.find_element(By.ID, "error").text
    return driver.find_element(By.ID, "board").get_attribute("data-position")


def moves_shown(driver):
    return [m.get_attribute("data-move") for m in driver.find_elements(By.CSS_SELECTOR, "#moves .move")]


def same_as_api(driver, base, db, position):
    """The page's position, value and moves are the API's, in its order."""
    answer = api(base, "/api/probe", db=db, position=position)
    shown = ready(driver)
    assert shown == answer["position"], (shown, answer["position"])
    shown_moves = moves_shown(driver)
    # The page groups by category, best first within each: the API's order.
    assert shown_moves == [m["move"] for m in answer["moves"]], shown_moves
    return answer


def check_page(driver, base):
    driver.get(base + "/")
    start = ready(driver)
    value = driver.find_element(By.ID, "value").text
    assert value == "Draw", value
    assert start == ".../.../..../.../... w 6 6", start
    assert len(moves_shown(driver)) == 16
    assert "White in hand: 6" in driver.find_element(By.ID, "hand-white").text
    assert "3-3" not in driver.find_element(By.ID, "stats").text
    driver.save_screenshot(os.path.join(OUT, "six-start.png"))
    print("browser-test: the start of six reads 'Draw', 16 moves")

    # A move clicked in the list.
    first = driver.find_element(By.CSS_SELECTOR, "#moves .move")
    played = first.get_attribute("data-move")
    after = api(base, "/api/probe", db="six", position=start)["moves"][0]
    first.click()
    answer = same_as_api(driver, base, "six", after["position"])
    assert driver.find_element(By.ID, "value").text != ""
    print(f"browser-test: {played} clicked in the list shows {answer['position']}")

    # A move played by clicks on the board: Black places on an empty point.
    target = next(m for m in answer["moves"] if "x" not in m["move"])
    driver.find_element(By.CSS_SELECTOR, f'[data-point="{target["move"]}"]').click()
    same_as_api(driver, base, "six", target["position"])
    print(f"browser-test: {target['move']} clicked on the board shows {target['position']}")

    driver.find_element(By.ID, "back").click()
    assert ready(driver) == after["position"]
    driver.find_element(By.ID, "back").click()
    assert ready(driver) == start
    driver.find_element(By.ID, "forward").click()
    assert ready(driver) == after["position"]
    print("browser-test: back and forward return")

    # The link reproduces what is shown.
    link = driver.find_element(By.ID, "permalink").get_attribute("href")
    driver.get(link)
    assert ready(driver) == after["position"]
    print("browser-test: the link reproduces the position")

    # A FEN pasted into the standard folder (which lacks the start's sector).
    driver.get(base + "/?db=std")
    assert settled(driver) == "error"
    assert "is not in" in driver.find_element(By.ID, "error").text
    box = driver.find_element(By.ID, "position-input")
    box.clear()
    box.send_keys(FEN)
    driver.find_element(By.ID, "show").click()
    answer = same_as_api(driver, base, "std", FEN)
    words = driver.find_element(By.ID, "value").text
    assert words.startswith(("White", "Black", "Draw")), words
    assert "3-3" in driver.find_element(By.ID, "stats").text
    driver.save_screenshot(os.path.join(OUT, "standard-fen.png"))
    print(f"browser-test: the FEN shows {answer['position']}: {words}")
    standard_lines = len(driver.find_elements(By.CSS_SELECTOR, "#board line"))

    # Morabaraba's board has its diagonals.
    driver.get(base + "/?db=mora&position=" + urllib.parse.quote(answer["position"]))
    ready(driver)
    lines = len(driver.find_elements(By.CSS_SELECTOR, "#board line"))
    links = len(api(base, "/api/meta", db="mora")["board"]["links"])
    assert lines == links and lines == standard_lines + 8, (lines, links, standard_lines)
    driver.save_screenshot(os.path.join(OUT, "morabaraba.png"))
    print(f"browser-test: Morabaraba's board has {lines} lines, its diagonals among them")

    # Under the move-count rule: the counter shown, and it grows with a move.
    driver.get(base + "/?db=six-20")
    assert ready(driver) == start
    assert "0 of 20 plies since the last mill" in driver.find_element(By.ID, "to-move").text
    driver.find_element(By.CSS_SELECTOR, "#moves .move").click()
    ready(driver)
    assert "1 of 20 plies since the last mill" in driver.find_element(By.ID, "to-move").text
    late = api(base, "/api/probe", db="six-20", position=start + " 20")
    driver.get(base + "/?db=six-20&position=" + urllib.parse.quote(start + " 20"))
    ready(driver)
    words = driver.find_element(By.ID, "value").text
    assert late["category"] == "draw" and "rule has drawn" in words, (late["category"], words)
    print(f"browser-test: under the rule of 20 the counter is shown; at 20: {words}")

    # Against the database: White plays, the database answers as Black.
    driver.get(base + "/?db=six")
    ready(driver)
    driver.find_element(By.CSS_SELECTOR, "#play-as option[value='w']").click()
    ready(driver)
    mine = api(base, "/api/probe", db="six", position=start)["moves"][0]
    driver.find_element(By.CSS_SELECTOR, f'#moves .move[data-move="{mine["move"]}"]').click()
    best = api(base, "/api/probe", db="six", position=mine["position"])["moves"][0]
    WebDriverWait(driver, 20).until(
        lambda d: d.find_element(By.ID, "board").get_attribute("data-position") == best["position"]
    )
    ready(driver)
    print(f"browser-test: against the database, {mine['move']} was answered with {best['move']}")
    driver.save_screenshot(os.path.join(OUT, "six-played.png"))


if __name__ == "__main__":
    main()
    print("browser-test: the page works in Chromium")
