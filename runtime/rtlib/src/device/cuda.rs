//! A real GPU through cudarc (driver API, library loaded at run time). Kernels are compiled
//! by NVRTC ([`super::nvrtc`], cached per program) and loaded as PTX modules.
//!
//! cudarc panics when the driver library is missing, so [`CudaDevice::open`] checks
//! `is_culib_present()` first and turns every failure of context creation into an error
//! (the caller then falls back to the host, see [`super::open`]).

use super::{err, for_each_run, Bounds, CopyPlan, DevError, DevPtr, Device, DeviceKind, KArg, ProgId};
use cudarc::driver::{result, sys, CudaContext, CudaFunction, CudaModule, CudaStream};
use std::ffi::c_void;
use std::sync::Arc;

/// A loaded program: its source, module and the functions looked up so far.
type LoadedProgram = (String, Arc<CudaModule>, Vec<(String, CudaFunction)>);

pub struct CudaDevice {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    progs: Vec<LoadedProgram>,
    allocs: Vec<u64>,
}

fn de(e: impl std::fmt::Debug) -> DevError {
    DevError(format!("CUDA: {e:?}"))
}

/// Whether the CUDA driver library can be loaded at all (never panics).
pub fn driver_present() -> bool {
    std::panic::catch_unwind(|| unsafe { sys::is_culib_present() }).unwrap_or(false)
}

impl CudaDevice {
    pub fn open() -> Result<CudaDevice, DevError> {
        if std::env::var_os("SAPFOR_NO_CUDA").is_some() {
            return err("SAPFOR_NO_CUDA is set");
        }
        if !driver_present() {
            return err("no CUDA driver library libcuda.so");
        }
        let ctx = std::panic::catch_unwind(|| CudaContext::new(0))
            .map_err(|_| DevError("CUDA initialisation panicked".into()))?
            .map_err(de)?;
        let stream = ctx.default_stream();
        Ok(CudaDevice {
            ctx,
            stream,
            progs: vec![],
            allocs: vec![],
        })
    }
}

impl Drop for CudaDevice {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        for p in self.allocs.drain(..) {
            unsafe {
                let _ = result::free_sync(p);
            }
        }
    }
}

impl Device for CudaDevice {
    fn kind(&self) -> DeviceKind {
        DeviceKind::Cuda
    }
    fn describe(&self) -> String {
        format!("CUDA device 0 ({})", self.ctx.name().unwrap_or_default())
    }
    fn alloc(&mut self, bytes: usize) -> Result<DevPtr, DevError> {
        self.ctx.bind_to_thread().map_err(de)?;
        let p = unsafe { result::malloc_sync(bytes.max(8)) }.map_err(de)?;
        unsafe { result::memset_d8_sync(p, 0, bytes.max(8)) }.map_err(de)?;
        self.allocs.push(p);
        Ok(DevPtr(p))
    }
    fn free(&mut self, p: DevPtr) {
        if let Some(i) = self.allocs.iter().position(|&a| a == p.0) {
            self.allocs.swap_remove(i);
            let _ = self.ctx.bind_to_thread();
            unsafe {
                let _ = result::free_sync(p.0);
            }
        }
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
        self.ctx.bind_to_thread().map_err(de)?;
        let at = |off: usize| dst.0 + (off * elem) as u64;
        CopyPlan::new(src_b, dst_b, region, elem, true).to_acc(
            src,
            elem,
            |off, p, bytes| result::memcpy_htod_sync(at(off), std::slice::from_raw_parts(p, bytes)).map_err(de),
            |p, off, bytes| result::memcpy_dtoh_sync(std::slice::from_raw_parts_mut(p, bytes), at(off)).map_err(de),
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
        self.ctx.bind_to_thread().map_err(de)?;
        CopyPlan::new(dst_b, src_b, region, elem, false).to_host(dst, elem, |p, off, bytes| {
            result::memcpy_dtoh_sync(std::slice::from_raw_parts_mut(p, bytes), src.0 + (off * elem) as u64).map_err(de)
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
        self.ctx.bind_to_thread().map_err(de)?;
        let mut res = Ok(());
        for_each_run(src_b, dst_b, region, |so, d, len| {
            if res.is_ok() {
                res = unsafe {
                    result::memcpy_dtod_sync(
                        dst.0 + (d * elem) as u64,
                        src.0 + (so * elem) as u64,
                        len * elem,
                    )
                }
                .map_err(de);
            }
        });
        res
    }
    fn load_program(&mut self, source: &str) -> Result<ProgId, DevError> {
        if let Some(i) = self.progs.iter().position(|(s, _, _)| s == source) {
            return Ok(ProgId(i));
        }
        let ptx = super::nvrtc::compile_cached(source, super::nvrtc::ARCH)?;
        let module = self
            .ctx
            .load_module(cudarc::nvrtc::Ptx::from_src(ptx))
            .map_err(de)?;
        self.progs.push((source.to_string(), module, vec![]));
        Ok(ProgId(self.progs.len() - 1))
    }
    fn launch(
        &mut self,
        prog: ProgId,
        kernel: &str,
        grid: [u32; 3],
        block: [u32; 3],
        args: &[KArg],
    ) -> Result<(), DevError> {
        self.ctx.bind_to_thread().map_err(de)?;
        let Some((_, module, funcs)) = self.progs.get_mut(prog.0) else {
            return err("no such program");
        };
        let f = match funcs.iter().find(|(n, _)| n == kernel) {
            Some((_, f)) => f.clone(),
            None => {
                let f = module.load_function(kernel).map_err(de)?;
                funcs.push((kernel.to_string(), f.clone()));
                f
            }
        };
        let mut slots: Vec<u64> = args.iter().map(KArg::slot).collect();
        let mut ptrs: Vec<*mut c_void> = slots
            .iter_mut()
            .map(|s| s as *mut u64 as *mut c_void)
            .collect();
        if grid.contains(&0) {
            return Ok(());
        }
        unsafe {
            result::launch_kernel(
                f.cu_function(),
                (grid[0], grid[1], grid[2]),
                (block[0], block[1], block[2]),
                0,
                self.stream.cu_stream(),
                &mut ptrs,
            )
        }
        .map_err(de)
    }
    fn sync(&mut self) -> Result<(), DevError> {
        self.stream.synchronize().map_err(de)
    }
}
