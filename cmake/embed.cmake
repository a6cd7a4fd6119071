# Turns a SPIR-V file into a C source with `const uint32_t SYM[]` and `const size_t SYM_size` (bytes).
# (Two regular expressions rather than a loop over the words: the mesh shaders' lean variants are many.)
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" hex_len)
math(EXPR bytes "${hex_len} / 2")
# SPIR-V words are little-endian: bytes b0 b1 b2 b3 -> 0xb3b2b1b0
set(byte "([0-9a-f][0-9a-f])")
string(REGEX REPLACE "${byte}${byte}${byte}${byte}" "0x\\4\\3\\2\\1," words "${hex}")
set(word "0x[0-9a-f]+,")
string(REGEX REPLACE "(${word}${word}${word}${word}${word}${word}${word}${word})" "\\1\n" words "${words}")
file(WRITE "${OUT}" "#include <stddef.h>\n#include <stdint.h>\nconst uint32_t ${SYM}[] = {\n${words}};\nconst size_t ${SYM}_size = ${bytes};\n")
