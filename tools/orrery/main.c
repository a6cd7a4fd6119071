#include <stdio.h>
int main(void) { puts("orrery"); return 0; }
