# Doxygen input filter for Orrery's headers, which use plain C comments (STYLE.md): the file's opening
# comment becomes its \file overview, a comment that opens a line documents what follows it, and a
# comment after code on the same line documents that member (/**<). Section rules (/* ---- x ---- */)
# stay plain comments. In the overview, a line "  name   what it does" (a name, then two spaces or a
# run of dots, then its description; deeper-indented lines continue it) becomes a list item, so that the
# overview's table of calls reads as a list rather than one paragraph.
1,/\*\//{
/^ \*   [^ -].*\([^ .]  \+[^ ]\|\.\.\.\. \)/s|^ \*   | *   - |
}
1s|^/\* \(.*\)$|/** @file\n * \1|
/^[[:space:]]*\/\* ---/b
s|^\([[:space:]]*\)/\* |\1/** |
s|^\([[:space:]]*[^[:space:]/*][^/]*\)/\* |\1/**< |
