//! The host as a device: representatives in host memory. Kernels are not run here (the host
//! version of a parallel loop is the Fortran loop itself), so `load_program`/`launch` refuse.

use super::{err, for_each_run, Bounds, DevError, DevPtr, Device, DeviceKind, KArg, ProgId};
use std::collections::BTreeMap;

/// Byte buffers owned by a device, addressed by their start address.
#[derive(Default)]
pub struct Mem {
    bufs: BTreeMap<u64, Vec<u64>>,
}

impl Mem {
    pub fn alloc(&mut self, bytes: usize) -> DevPtr {
        // u64 words: 8-byte alignment for every element type
        let v = vec![0u64; bytes.div_ceil(8).max(1)];
        let p = v.as_ptr() as u64;
        self.bufs.insert(p, v);
        DevPtr(p)
    }
    pub fn free(&mut self, p: DevPtr) {
        self.bufs.remove(&p.0);
    }
    pub fn live(&self) -> usize {
        self.bufs.len()
    }
}

pub(crate) unsafe fn copy_box(
    dst: *mut u8,
    dst_b: &Bounds,
    src: *const u8,
    src_b: &Bounds,
    elem: usize,
    region: &Bounds,
) -> u64 {
    let mut n = 0u64;
    for_each_run(src_b, dst_b, region, |so, d, len| {
        std::ptr::copy_nonoverlapping(src.add(so * elem), dst.add(d * elem), len * elem);
        n += (len * elem) as u64;
    });
    n
}

#[derive(Default)]
pub struct HostDevice {
    mem: Mem,
}

/// The memory methods of a device whose memory is ordinary RAM in a [`Mem`] field `mem`
/// (the host itself and the emulated accelerator, which keeps its own separate allocations).
/// Boxes move between the host and the device the way the CUDA device moves them
/// ([`super::CopyPlan`]: merged runs, or one span with the gaps read first), so that the
/// emulated accelerator's runs check that logic too.
macro_rules! ram_memory_methods {
    () => {
        fn alloc(&mut self, bytes: usize) -> Result<DevPtr, DevError> {
            Ok(self.mem.alloc(bytes))
        }
        fn free(&mut self, p: DevPtr) {
            self.mem.free(p)
        }
        unsafe fn to_device(
            &mut self,
            dst: DevPtr,
            dst_b: &Bounds,
            src: *const u8,
            src_b: &Bounds,
            elem: usize,
            region: &Bounds,
        ) -> Result<u64, DevError> {
            let at = |off: usize| (dst.0 as *mut u8).add(off * elem);
            super::CopyPlan::new(src_b, dst_b, region, elem, true).to_acc(
                src,
                elem,
                |off, p, bytes| {
                    std::ptr::copy_nonoverlapping(p, at(off), bytes);
                    Ok(())
                },
                |p, off, bytes| {
                    std::ptr::copy_nonoverlapping(at(off), p, bytes);
                    Ok(())
                },
            )
        }
        unsafe fn to_host(
            &mut self,
            dst: *mut u8,
            dst_b: &Bounds,
            src: DevPtr,
            src_b: &Bounds,
            elem: usize,
            region: &Bounds,
        ) -> Result<u64, DevError> {
            super::CopyPlan::new(dst_b, src_b, region, elem, false).to_host(dst, elem, |p, off, bytes| {
                std::ptr::copy_nonoverlapping((src.0 as *const u8).add(off * elem), p, bytes);
                Ok(())
            })
        }
        fn copy_within(
            &mut self,
            dst: DevPtr,
            dst_b: &Bounds,
            src: DevPtr,
            src_b: &Bounds,
            elem: usize,
            region: &Bounds,
        ) -> Result<(), DevError> {
            unsafe { copy_box(dst.0 as *mut u8, dst_b, src.0 as *const u8, src_b, elem, region) };
            Ok(())
        }
    };
}
pub(crate) use ram_memory_methods;

impl HostDevice {
    pub fn new() -> HostDevice {
        HostDevice::default()
    }
}

impl Device for HostDevice {
    fn kind(&self) -> DeviceKind {
        DeviceKind::Host
    }
    fn describe(&self) -> String {
        "host".into()
    }
    ram_memory_methods!();
    fn load_program(&mut self, _source: &str) -> Result<ProgId, DevError> {
        err("the host device runs the Fortran version of loops, not kernels")
    }
    fn launch(
        &mut self,
        _p: ProgId,
        kernel: &str,
        _g: [u32; 3],
        _b: [u32; 3],
        _a: &[KArg],
    ) -> Result<(), DevError> {
        err(format!(
            "kernel {kernel}: the host device does not launch kernels"
        ))
    }
}
