//! The stack's high-water mark, measured by painting (feature `stack-probe`; Cortex-M with
//! cortex-m-rt's linker script, `target_os = "none"`).
//!
//! [`paint`] fills the free stack with [`PATTERN`]: every word from cortex-m-rt's `__sheap` (the
//! end of `.data`, `.bss` and `.uninit`, where the stack's room begins) up to the stack pointer.
//! Run the code to measure, then [`Painted::peak_bytes`] counts the words that still hold the
//! pattern from the bottom up: the first one that does not is the deepest the stack has reached
//! since, and the peak is its distance from `_stack_start` (the top of the stack, where the
//! reset handler starts). Frames already on the stack when `paint` ran are included (they lie
//! above the painted words); interrupt handlers that ran in between are included too, since
//! their frames go on the same stack. Both loops are a few instructions of inline assembly that
//! call nothing, so they paint and read right up to the stack pointer, in optimised and
//! unoptimised builds alike.
//!
//! ```ignore
//! let painted = stowplan::stack::paint();
//! net::invoke(arena);
//! hprintln!("stack peak {} B", painted.peak_bytes());
//! ```
//!
//! # What enabling the feature promises
//!
//! The functions are safe because the feature's contract is that the RAM between `__sheap` and
//! the stack pointer is this core's main stack's room and nothing else's: no heap allocator
//! placed at `__sheap` (cortex-m-rt's `heap_start`), no thread stacks or buffers handed out from
//! there, no second core's stack. cortex-m-rt leaves that RAM unused unless the program hands it
//! to something; a program that does must not enable `stack-probe`. Painting otherwise writes
//! only memory that no Rust allocation occupies (free stack below the stack pointer).
//!
//! If the stack pointer is not between `__sheap` and `_stack_start` (a thread stack elsewhere,
//! or a stack moved to another RAM region), `paint` paints nothing and `peak_bytes` returns the
//! whole span from `__sheap` to `_stack_start`, an upper bound that says nothing was measured.

/// What [`paint`] writes into every free stack word: `0xCCCC_CCCC`, as cortex-m-rt's own
/// `paint-stack` feature. A frame that stores this exact value at the deepest point would hide
/// that one word: the peak would be 4 bytes low.
pub const PATTERN: u32 = 0xCCCC_CCCC;

/// The words [`paint`] painted, to be examined by [`Painted::peak_bytes`].
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Painted {
    /// Address of the lowest painted word: `__sheap`.
    bottom: usize,
    /// One past the highest painted word: the stack pointer when `paint` ran (`bottom` when
    /// nothing was painted).
    top: usize,
    /// The top of the stack: `_stack_start`.
    start: usize,
}

unsafe extern "C" {
    // Symbols of cortex-m-rt's `link.x`. Only their addresses mean anything; declared zero-sized
    // so that no value is claimed to be stored there (`_stack_start` is one past the end of RAM)
    // and never read.
    /// The end of static RAM data (`.data`, `.bss`, `.uninit`), 4-byte aligned (a `link.x`
    /// assertion): where the stack's room begins.
    static __sheap: [u32; 0];
    /// The initial stack pointer, 8-byte aligned (a `link.x` assertion): the top of the stack.
    static _stack_start: [u32; 0];
}

/// Fills the free stack with [`PATTERN`]: the words from `__sheap` up to the stack pointer.
/// Call it before the code to measure, and [`Painted::peak_bytes`] after.
///
/// Takes time proportional to the free stack (one store per word). Painting again is harmless;
/// each [`Painted`] measures from its own painting.
#[inline(never)]
#[must_use = "the painting is measured through the returned `Painted`"]
pub fn paint() -> Painted {
    let bottom = (&raw const __sheap).addr();
    let start = (&raw const _stack_start).addr();
    let top: usize;
    // SAFETY: the assembly reads SP and stores `PATTERN` into each word `a` with
    // `bottom <= a < top`, where `top` is SP if `bottom <= SP <= start`, else `bottom` (nothing
    // is stored); it uses r0-r3 only, as declared, and does not touch the stack (`nostack`).
    // - The words hold no Rust allocation. Above `__sheap` lie no statics (it is the end of
    //   `.data`, `.bss` and `.uninit`) and, by the feature's contract (module docs), no heap or
    //   other user of that RAM. Below SP lies no live frame: AAPCS code never stores below SP
    //   (no red zone), the loop calls nothing, and an interrupt handler's frames are there only
    //   while it runs, which the loop then does not (a handler runs to its end before the code
    //   it preempted resumes, on the one core); what the handler leaves below SP is dead.
    // - The stores are aligned: `bottom` is a multiple of 4 (`link.x` asserts it of `__sheap`)
    //   and each `stm` advances by 4; the loop ends when the address reaches `top`.
    // - The words are RAM: between `__sheap` and `_stack_start`, both in `link.x`'s RAM region.
    unsafe {
        core::arch::asm!(
            "mov r1, sp",
            "cmp r1, r3",
            "bhi 2f",         // SP above `_stack_start`: not the main stack
            "cmp r1, r0",
            "bhs 3f",         // `__sheap <= SP`: paint up to SP
            "2:",
            "mov r1, r0",     // paint nothing
            "3:",
            "cmp r0, r1",
            "bhs 4f",
            "stm r0!, {{r2}}", // store the pattern, advance by one word
            "b 3b",
            "4:",
            inout("r0") bottom => _,
            out("r1") top,
            in("r2") PATTERN,
            in("r3") start,
            options(nostack),
        );
    }
    Painted { bottom, top, start }
}

impl Painted {
    /// The deepest the stack has reached since [`paint`], in bytes from its top
    /// (`_stack_start`): up to the lowest word that no longer holds [`PATTERN`], scanning the
    /// painted words from the bottom up.
    ///
    /// Only painted words below the current stack pointer are read (the rest are in use): if
    /// none of those was overwritten, the result is the distance to the first word not read
    /// (an upper bound). With nothing painted it is the whole span from `__sheap` to
    /// `_stack_start`.
    #[inline(never)]
    #[must_use]
    pub fn peak_bytes(&self) -> usize {
        let first: usize;
        // SAFETY: the assembly loads each word `a` with `self.bottom <= a < min(self.top, SP)`,
        // from the bottom up, until one differs from `PATTERN`, and returns that address (or
        // the limit); it uses r0-r4 only, as declared, reads memory, writes none
        // (`readonly`) and does not touch the stack (`nostack`).
        // - The words hold no Rust allocation: below SP, and above `__sheap` (as argued in
        //   `paint`: no statics, nothing else by the feature's contract, no live frame below SP
        //   while the loop, which calls nothing, runs).
        // - The loads are aligned: `self.bottom` is a multiple of 4 (see `paint`) and the
        //   address advances by 4.
        // - The words are RAM: below `self.top`, which `paint` kept at or below `_stack_start`.
        unsafe {
            core::arch::asm!(
                "mov r1, sp",
                "cmp r1, r2",
                "bls 2f",      // SP at or below the painted top: read up to SP
                "mov r1, r2",  // else up to the painted top
                "2:",
                "cmp r0, r1",
                "bhs 3f",
                "ldr r3, [r0]",
                "cmp r3, r4",
                "bne 3f",      // overwritten: the stack reached this word
                "adds r0, #4",
                "b 2b",
                "3:",
                inout("r0") self.bottom => first,
                out("r1") _,
                in("r2") self.top,
                out("r3") _,
                in("r4") PATTERN,
                options(nostack, readonly),
            );
        }
        self.start - first
    }

    /// Bytes painted: the free stack [`paint`] found.
    #[must_use]
    pub fn painted_bytes(&self) -> usize {
        self.top - self.bottom
    }
}
