//! The machine description the cost model estimates for: process count, message latency and
//! per-byte time (between and inside nodes), the time of operations, runtime overheads. Read
//! from a TOML file (`--machine FILE`); every key is optional and defaults to the values below.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MachineModel {
    /// Number of MPI processes the program will run on.
    pub processes: u32,
    /// Processes on one node (messages between them use the intra-node figures).
    pub processes_per_node: u32,
    /// Message start-up time between nodes, microseconds (SPEC example: 7).
    pub tstart_us: f64,
    /// Time per byte between nodes, microseconds (SPEC example: 0.004).
    pub tbyte_us: f64,
    /// Message start-up time inside a node, microseconds.
    pub tstart_intra_us: f64,
    /// Time per byte inside a node, microseconds.
    pub tbyte_intra_us: f64,
    /// Time of one arithmetic operation, nanoseconds.
    pub flop_ns: f64,
    /// Time of one memory reference, nanoseconds.
    pub memref_ns: f64,
    /// Time of one memory reference while every process of a node streams memory at once
    /// (they share its memory bandwidth), nanoseconds; 0: as `memref_ns`. The computation of
    /// a scheme that runs several processes on a node is estimated with it.
    pub memref_busy_ns: f64,
    /// Copying one element of a strided shadow face, beyond `memref_ns`, nanoseconds: a face
    /// across the first dimension of a `(BLOCK,*,*)` array is a run of one element every
    /// column, each in its own cache line (and page, for long columns); runs of R elements
    /// pay it once a run. Packing and unpacking a face copies each element twice.
    pub strided_ns: f64,
    /// Runtime cost of starting one distributed parallel loop on a process of one thread,
    /// microseconds: its calls into the runtime (bounds, renewals of held edges, profile
    /// hooks). A nest run in order starts the loops inside it once per execution of the
    /// loops around it (NPB LU's eta-direction nest: 3.9 million starts at class A).
    pub loop_overhead_us: f64,
    /// Starting a loop's threads (an OpenMP parallel region of more than one thread) and
    /// joining them, microseconds: loops on replicated data carry a directive for
    /// `--threads` only when one execution is worth 10 times this.
    pub thread_start_us: f64,
    /// Start-up of a run on `processes` processes (mpirun, MPI_Init, MPI_Finalize), seconds:
    /// a distributed scheme pays it, the replicated program run on one process does not.
    /// 0: not known (`sapfor calibrate` measures it).
    pub startup_s: f64,
    /// One element read of a distributed array outside parallel loops served from the
    /// runtime's read cache (a sequential loop printing an array), microseconds.
    pub cached_read_us: f64,
    /// Iterations assumed for loops whose count is not known statically.
    pub unknown_trip_count: u64,
    /// Pipeline blocks per process for ACROSS loops.
    pub across_blocks: u32,
    /// Process grid to estimate for, one extent per distributed dimension (product =
    /// `processes`); empty: every grid is tried and the cheapest kept. A scheme with another
    /// number of distributed dimensions ignores it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub grid: Vec<u32>,
    /// Accelerators (GPUs) per node; 0: regions always stay on the host.
    pub gpus_per_node: u32,
    /// Speed of one accelerator relative to one CPU core on loop nests (throughput ratio).
    pub device_speedup: f64,
    /// Start-up time of one host<->accelerator copy, microseconds.
    pub device_tstart_us: f64,
    /// Time per byte of host<->accelerator copies, microseconds (0.0001 = 10 GB/s).
    pub device_tbyte_us: f64,
    /// Cost of launching one kernel (one parallel loop of a region), microseconds.
    pub kernel_launch_us: f64,
}

impl Default for MachineModel {
    fn default() -> Self {
        MachineModel {
            processes: 4,
            processes_per_node: 1,
            tstart_us: 7.0,
            tbyte_us: 0.004,
            tstart_intra_us: 1.0,
            tbyte_intra_us: 0.0005,
            flop_ns: 1.0,
            memref_ns: 1.0,
            memref_busy_ns: 0.0,
            strided_ns: 5.0,
            loop_overhead_us: 0.5,
            thread_start_us: 20.0,
            startup_s: 0.0,
            cached_read_us: 0.2,
            unknown_trip_count: 100,
            across_blocks: 8,
            grid: vec![],
            gpus_per_node: 1,
            device_speedup: 20.0,
            device_tstart_us: 10.0,
            device_tbyte_us: 0.0001,
            kernel_launch_us: 5.0,
        }
    }
}

impl MachineModel {
    /// Parse a TOML machine description; unknown keys are errors (typos must not pass).
    pub fn from_toml(text: &str) -> Result<MachineModel, String> {
        let m: MachineModel = toml::from_str(text).map_err(|e| e.to_string())?;
        m.validate()?;
        Ok(m)
    }

    pub fn validate(&self) -> Result<(), String> {
        if self.processes == 0 {
            return Err("processes must be at least 1".into());
        }
        if self.processes_per_node == 0 {
            return Err("processes_per_node must be at least 1".into());
        }
        for (k, v) in [
            ("tstart_us", self.tstart_us),
            ("tbyte_us", self.tbyte_us),
            ("tstart_intra_us", self.tstart_intra_us),
            ("tbyte_intra_us", self.tbyte_intra_us),
            ("flop_ns", self.flop_ns),
            ("memref_ns", self.memref_ns),
            ("memref_busy_ns", self.memref_busy_ns),
            ("strided_ns", self.strided_ns),
            ("loop_overhead_us", self.loop_overhead_us),
            ("thread_start_us", self.thread_start_us),
            ("startup_s", self.startup_s),
            ("cached_read_us", self.cached_read_us),
            ("device_tstart_us", self.device_tstart_us),
            ("device_tbyte_us", self.device_tbyte_us),
            ("kernel_launch_us", self.kernel_launch_us),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(format!("{k} must be a non-negative number"));
            }
        }
        if !self.grid.is_empty() && self.grid.iter().product::<u32>() != self.processes {
            return Err(format!(
                "grid {} has {} processes, not {}",
                self.grid
                    .iter()
                    .map(|g| g.to_string())
                    .collect::<Vec<_>>()
                    .join("x"),
                self.grid.iter().product::<u32>(),
                self.processes
            ));
        }
        if !(self.device_speedup.is_finite() && self.device_speedup > 0.0) {
            return Err("device_speedup must be a positive number".into());
        }
        if self.across_blocks == 0 {
            return Err("across_blocks must be at least 1".into());
        }
        Ok(())
    }

    /// The machine as a scheme that runs several processes on a node sees it: memory
    /// references at `memref_busy_ns`. None when that is not measured or changes nothing
    /// (one process, one process per node).
    pub fn busy(&self) -> Option<MachineModel> {
        let on_node = self.processes.min(self.processes_per_node);
        (self.memref_busy_ns > 0.0 && on_node > 1 && self.memref_busy_ns != self.memref_ns).then(|| MachineModel {
            memref_ns: self.memref_busy_ns,
            ..self.clone()
        })
    }

    /// Apply a `key = value` refinement (from `sapfor refine machine`).
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut v = toml::Value::try_from(&*self).map_err(|e| e.to_string())?;
        let table = v.as_table_mut().ok_or("machine model is not a table")?;
        let old = table
            .get(key)
            .ok_or_else(|| format!("unknown machine parameter `{key}`"))?;
        let new = match old {
            toml::Value::Integer(_) => toml::Value::Integer(
                value
                    .trim()
                    .parse()
                    .map_err(|_| format!("`{value}` is not an integer (for {key})"))?,
            ),
            _ => toml::Value::Float(
                value
                    .trim()
                    .parse()
                    .map_err(|_| format!("`{value}` is not a number (for {key})"))?,
            ),
        };
        table.insert(key.to_string(), new);
        let m: MachineModel = v.try_into().map_err(|e: toml::de::Error| e.to_string())?;
        m.validate()?;
        *self = m;
        Ok(())
    }

    /// Cost of one host<->accelerator copy of `bytes`, seconds (0 for no bytes).
    pub fn device_copy_s(&self, bytes: f64) -> f64 {
        if bytes <= 0.0 {
            0.0
        } else {
            (self.device_tstart_us + bytes * self.device_tbyte_us) * 1e-6
        }
    }

    /// Cost of one message of `bytes` between neighbours, seconds. Neighbour processes are
    /// on the same node when there are several processes per node (a rough but monotone view).
    pub fn message_s(&self, bytes: f64) -> f64 {
        let (ts, tb) = if self.processes_per_node > 1 {
            (self.tstart_intra_us, self.tbyte_intra_us)
        } else {
            (self.tstart_us, self.tbyte_us)
        };
        (ts + bytes * tb) * 1e-6
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn toml_defaults_and_errors() {
        let m = MachineModel::from_toml("processes = 100\ntstart_us = 7\n").unwrap();
        assert_eq!(m.processes, 100);
        assert_eq!(m.tbyte_us, 0.004);
        assert!(MachineModel::from_toml("procesess = 3")
            .unwrap_err()
            .contains("procesess"));
        assert!(MachineModel::from_toml("processes = 0").is_err());
        let mut m = MachineModel {
            grid: vec![2, 2],
            ..MachineModel::default()
        };
        assert!(m.validate().is_ok());
        m.grid = vec![3, 2];
        assert_eq!(m.validate().unwrap_err(), "grid 3x2 has 6 processes, not 4");
        m.grid.clear();
        m.set("tstart_us", "3.5").unwrap();
        assert_eq!(m.tstart_us, 3.5);
        m.set("processes", "16").unwrap();
        assert_eq!(m.processes, 16);
        assert!(m.set("nope", "1").is_err());
        assert!(m.set("processes", "x").is_err());
        // 1 message of 2000 4-byte elements with the SPEC figures: 7 + 8000*0.004 = 39 us.
        let s = MachineModel {
            processes_per_node: 1,
            ..MachineModel::default()
        };
        assert!((s.message_s(8000.0) - 39e-6).abs() < 1e-12);
    }
}
