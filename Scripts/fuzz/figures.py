"""Prints the fuzz run's figures: requests the server answered (from its one-line-per-request
log), how many were 5xx, and the spec violations schemathesis found (from its NDJSON report).

    python3 Scripts/fuzz/figures.py SERVER_LOG REPORT_DIR
"""
import glob
import json
import re
import sys

REQUEST_LINE = re.compile(r"\b(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|TRACE|CONNECT) (/\S*) (\d{3})\b")


def main(server_log: str, report_dir: str) -> None:
    requests = 0
    server_errors: list[str] = []
    with open(server_log, encoding="utf-8", errors="replace") as log:
        for line in log:
            match = REQUEST_LINE.search(line)
            if not match:
                continue
            requests += 1
            if match.group(3).startswith("5"):
                server_errors.append(f"{match.group(1)} {match.group(2)} {match.group(3)}")

    reports = sorted(glob.glob(f"{report_dir}/*.ndjson"))
    tested: set[str] = set()
    operations = 0
    violations: dict[tuple[str, str], str] = {}
    if reports:
        with open(reports[-1], encoding="utf-8") as report:
            for line in report:
                event = json.loads(line)
                (kind, payload), = event.items()
                if kind == "LoadingFinished":
                    operations = payload.get("statistic", {}).get("operations", {}).get("selected", 0)
                if kind != "ScenarioFinished":
                    continue
                recorder = payload.get("recorder", {})
                label = recorder.get("label", "?")
                if payload.get("status") in ("success", "failure", "error"):
                    tested.add(label)
                for checks in recorder.get("checks", {}).values():
                    for check in checks:
                        if check.get("status") == "failure":
                            failure = check.get("failure_info") or {}
                            title = (failure.get("failure") or {}).get("title", "") if isinstance(failure, dict) else ""
                            violations.setdefault((label, check.get("name", "?")), title)

    print(f"fuzz-api figures: requests made {requests}, 5xx {len(server_errors)}, "
          f"spec violations {len(violations)} (operations tested {len(tested)}/{operations})")
    for error in sorted(set(server_errors)):
        print(f"  5xx: {error}")
    for (label, check), title in sorted(violations.items()):
        print(f"  violation: {label}: {check} {title}".rstrip())


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
