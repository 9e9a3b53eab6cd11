/* A stand-in bcryptprimitives.dll for testing under Wine 8, whose own lacks ProcessPrng
 * (Windows 10 and 11 have it, and Rust's standard library imports it). It fills the
 * buffer from RtlGenRandom (SystemFunction036). A test fixture: scripts/wine-check.sh
 * builds it with mingw-w64 and puts it beside the executable it tests; it is never part
 * of a release. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
