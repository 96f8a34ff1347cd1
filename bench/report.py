"""What the benchmark scripts write: Markdown tables, and a run's records as
JSON next to their table.

bench/search.py, bench/search_scaling.py and bench/gpu/run.py import it (the
GPU script by path: it runs from the working tree on a machine without the
package).
"""

import json


def table_header(headers):
    """The header line and the separator line of a Markdown table."""
    return ("| " + " | ".join(headers) + " |\n"
            + "|" + " --- |" * len(headers))


def table_row(cells):
    """One row of a Markdown table; each cell as str() writes it."""
    return "| " + " | ".join(str(c) for c in cells) + " |"


def markdown_table(headers, rows):
    """A Markdown table of `rows` (each a list of cells), newline-terminated."""
    return "\n".join([table_header(headers)]
                     + [table_row(r) for r in rows]) + "\n"


def write_report(out_dir, stem, records, table):
    """Writes `records` to <out_dir>/<stem>.json and `table` to <stem>.md,
    creating out_dir, and prints the table."""
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / f"{stem}.json").write_text(json.dumps(records, indent=2) + "\n")
    (out_dir / f"{stem}.md").write_text(table)
    print(table)
