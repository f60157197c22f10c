//! What both firmware binaries share: how they end. Each exits QEMU through semihosting, with
//! status 0 on success and 1 on a failed check, a panic or a HardFault.

use cortex_m_rt::{ExceptionFrame, exception};
use cortex_m_semihosting::{debug, hprintln};

/// Exits QEMU with status 0.
#[inline(always)]
pub fn pass() -> ! {
    debug::exit(debug::EXIT_SUCCESS);
    loop {
        cortex_m::asm::wfi();
    }
}

/// Reports a failure and exits QEMU with status 1.
pub fn fail(why: &str) -> ! {
    hprintln!("FAILED: {}", why);
    debug::exit(debug::EXIT_FAILURE);
    loop {
        cortex_m::asm::wfi();
    }
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    hprintln!("panic: {}", info);
    debug::exit(debug::EXIT_FAILURE);
    loop {
        cortex_m::asm::wfi();
    }
}

// cortex-m-rt requires a HardFault handler to be declared `unsafe fn`; this one does nothing
// unsafe: it reports the fault and exits QEMU with status 1 (instead of the default endless loop).
#[allow(unsafe_code)]
#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    hprintln!("HardFault at pc {:#010x}", frame.pc());
    debug::exit(debug::EXIT_FAILURE);
    loop {
        cortex_m::asm::wfi();
    }
}
