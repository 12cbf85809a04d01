"""Prints the code block of a Markdown file that follows the line
`<!-- begin: NAME -->` (the fence lines themselves are left out)."""
import sys

path, name = sys.argv[1], sys.argv[2]
lines = open(path, encoding="utf-8").read().split("\n")
try:
    start = lines.index("<!-- begin: %s -->" % name)
except ValueError:
    sys.exit("%s: no '<!-- begin: %s -->' marker" % (path, name))
if not lines[start + 1].startswith("```"):
    sys.exit("%s: the marker for %s is not followed by a code fence" % (path, name))
end = lines.index("```", start + 2)
sys.stdout.write("\n".join(lines[start + 2:end]) + "\n")
