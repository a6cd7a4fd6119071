# Turns a text file into a C source with `const char SYM[]` (NUL-terminated) and `const size_t SYM_size`
# (bytes, without the NUL): headers the library hands to its run-time GLSL compiler.
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" hex_len)
math(EXPR bytes "${hex_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "((0x..,){16})" "\\1\n" body "${body}")
file(WRITE "${OUT}" "#include <stddef.h>\nconst char ${SYM}[] = {\n${body}0};\nconst size_t ${SYM}_size = ${bytes};\n")
