# Doxygen input filter for Orrery's headers, which use plain C comments (STYLE.md). POSIX awk.
# - The file's opening comment becomes its \file overview. In it, a line "  name   what it does" (a
#   name, then two spaces or a run of dots, then its description; deeper-indented lines continue it)
#   becomes a list item, so that the overview's table of calls reads as a list, not one paragraph.
# - A comment that opens a line documents what follows it, unless a blank line follows the comment:
#   then it is a note about the header's section, added to the header's description, never taken
#   for the description of the next entity.
# - A comment after code on the same line documents that member (/**<).
# - Section rules (/* ---- x ---- */) stay plain comments.
function flush(doc,    i, line) {
    for (i = 1; i <= n; i++) {
        line = buf[i]
        if (i == 1) sub(/\/\* /, doc ? "/** " : "/** @file\n * ", line)
        print line
    }
    n = 0
    waiting = 0
}
BEGIN { n = 0; waiting = 0; overview = 0 }
NR == 1 && /^\/\* / {
    sub(/^\/\* /, "/** @file\n * ")
    print
    overview = index($0, "*/") ? 0 : 1
    next
}
overview {
    rest = substr($0, 6)
    if ($0 ~ /^ \*   [^ -]/ && (rest ~ /[^ .][ ][ ]+[^ ]/ || rest ~ /\.\.\.\. /)) sub(/^ \*   /, " *   - ")
    print
    if (index($0, "*/")) overview = 0
    next
}
waiting {
    flush($0 !~ /^[ \t]*$/)
}
n > 0 {
    buf[++n] = $0
    if (index($0, "*/")) waiting = 1
    next
}
/^[ \t]*\/\* ---/ { print; next }
/^[ \t]*\/\* / {
    buf[++n] = $0
    if (index($0, "*/")) waiting = 1
    next
}
/^[ \t]*[^ \t\/*][^\/]*\/\* / {
    i = index($0, "/* ")
    $0 = substr($0, 1, i - 1) "/**< " substr($0, i + 3)
}
{ print }
END { if (n > 0) flush(0) }
