//! Block distribution arithmetic: which global indices a process owns, where they are in
//! its local block, packing and unpacking rectangular sections. Pure code, unit-tested.

/// One dimension of a distributed (or aligned) array.
#[derive(Clone, Debug)]
pub struct Dim {
    /// Global bounds of the array in this dimension.
    pub glo: i64,
    pub ghi: i64,
    /// Grid axis that splits this dimension (None: not split, every process has it all).
    pub axis: Option<usize>,
    /// Bounds of the template dimension that is split in blocks (for an aligned array, the
    /// target array's dimension), and the alignment offset: element i lives with template
    /// index i + off.
    pub tlo: i64,
    pub thi: i64,
    pub off: i64,
    /// Shadow widths.
    pub slo: i64,
    pub shi: i64,
    /// `WGT_BLOCK` / `GEN_BLOCK`: the first template index of each grid coordinate's block
    /// along `axis`, and one past the last block's end (grid size + 1 entries); None for
    /// BLOCK's equal blocks.
    pub cuts: Option<std::sync::Arc<Vec<i64>>>,
}

#[derive(Clone, Debug)]
pub struct Layout {
    pub esize: usize,
    pub dims: Vec<Dim>,
    /// Owned global range per dimension (own_hi < own_lo when this process owns nothing).
    pub own_lo: Vec<i64>,
    pub own_hi: Vec<i64>,
    /// Allocated range: owned plus shadows, clipped to the global bounds.
    pub alo: Vec<i64>,
    pub ahi: Vec<i64>,
}

/// Split `n` processes over `k` axes: prime factors, largest first, each to the axis with
/// the smallest product so far (ties: the last axis, whose array dimension is the slowest
/// varying in Fortran, so that exchanged planes are contiguous).
pub fn factor_grid(n: usize, k: usize) -> Vec<usize> {
    if k == 0 {
        return vec![];
    }
    let mut f = vec![];
    let mut m = n.max(1);
    let mut p = 2;
    while m > 1 {
        while m % p == 0 {
            f.push(p);
            m /= p;
        }
        p += 1;
    }
    f.sort_unstable_by(|a, b| b.cmp(a));
    let mut g = vec![1usize; k];
    for x in f {
        let mut best = k - 1;
        for a in (0..k).rev() {
            if g[a] < g[best] {
                best = a;
            }
        }
        g[best] *= x;
    }
    g
}

/// The template block of grid coordinate `c` out of `p`: [lo, hi], with the first and last
/// blocks open-ended so that aligned indices outside the template still have an owner.
fn block(tlo: i64, thi: i64, p: usize, c: usize) -> (i64, i64) {
    let (b, last) = block_size(tlo, thi, p);
    if c > last {
        // more processes than template elements: this block is empty
        return (1, 0);
    }
    let lo = if c == 0 { i64::MIN / 4 } else { tlo + c as i64 * b };
    let hi = if c == last { i64::MAX / 4 } else { tlo + (c as i64 + 1) * b - 1 };
    (lo, hi)
}

/// `block` for explicit cuts (`Dim::cuts`): [cuts[c], cuts[c+1]-1], the first block open
/// below and the last above, as `block`'s; an empty block is (1, 0).
fn cut_block(cuts: &[i64], c: usize) -> (i64, i64) {
    let p = cuts.len() - 1;
    let (lo, hi) = (cuts[c], cuts[c + 1] - 1);
    if hi < lo && c != 0 && c != p - 1 {
        return (1, 0);
    }
    (if c == 0 { i64::MIN / 4 } else { lo }, if c == p - 1 { i64::MAX / 4 } else { hi })
}

/// The cuts (`Dim::cuts`) of template dimension [tlo, thi] over `p` processes. `sizes`
/// (`GEN_BLOCK`): each process's number of elements, in order (they must add up to the
/// dimension's extent). Otherwise `weights` (`WGT_BLOCK(W, NB)`): the dimension is cut into
/// NB = `weights.len()` parts of nearly equal length, part k weighing `weights[k]`, and each
/// process takes consecutive parts until its running total reaches its share of the whole
/// (the cut nearest to it). Err: why not.
pub fn weighted_cuts(tlo: i64, thi: i64, p: usize, weights: &[f64], sizes: Option<&[i64]>) -> Result<Vec<i64>, String> {
    let n = thi - tlo + 1;
    let mut cuts = vec![tlo];
    if let Some(m) = sizes {
        if m.len() < p || m[..p].iter().any(|&x| x < 0) || m[..p].iter().sum::<i64>() != n {
            return Err(format!("GEN_BLOCK: the first {p} sizes must be non-negative and add up to the dimension's {n} elements"));
        }
        // (neighbours along an axis hold neighbouring blocks: empty blocks only at the end)
        if m[..p].windows(2).any(|w| w[0] == 0 && w[1] > 0) {
            return Err("GEN_BLOCK: an empty block before a non-empty one is not supported".into());
        }
        for &x in &m[..p] {
            cuts.push(cuts.last().unwrap() + x);
        }
        return Ok(cuts);
    }
    let nb = weights.len() as i64;
    if nb == 0 || nb > n || weights.iter().any(|w| !w.is_finite() || *w < 0.0) || weights.iter().sum::<f64>() <= 0.0 {
        return Err(format!("WGT_BLOCK: need 1 to {n} non-negative weights, not all zero"));
    }
    // part k: [tlo + k*n/nb, tlo + (k+1)*n/nb - 1]
    let start = |k: i64| tlo + k * n / nb;
    let total: f64 = weights.iter().sum();
    let mut acc = 0.0;
    let mut k = 0i64;
    let mut prev = 0i64;
    for c in 1..p {
        let goal = total * c as f64 / p as f64;
        while k < nb && (acc + weights[k as usize] / 2.0) < goal {
            acc += weights[k as usize];
            k += 1;
        }
        // every process at least one part while parts last (neighbours along an axis hold
        // neighbouring blocks: empty blocks only at the end, as BLOCK's)
        let (ci, pc) = (c as i64, p as i64);
        let kc = if nb >= pc { k.clamp(prev + 1, nb - (pc - ci)) } else { ci.min(nb) };
        k = kc;
        acc = weights[..kc as usize].iter().sum();
        prev = kc;
        cuts.push(start(kc));
    }
    cuts.push(thi + 1);
    Ok(cuts)
}

/// Block size and the coordinate of the last non-empty block.
fn block_size(tlo: i64, thi: i64, p: usize) -> (i64, usize) {
    let n = (thi - tlo + 1).max(1);
    let b = (n + p as i64 - 1) / p as i64;
    (b, ((n - 1) / b) as usize)
}

impl Layout {
    pub fn new(esize: usize, dims: Vec<Dim>, grid: &[usize], coords: &[usize]) -> Layout {
        let mut l = Layout {
            esize,
            dims,
            own_lo: vec![],
            own_hi: vec![],
            alo: vec![],
            ahi: vec![],
        };
        l.place(grid, coords);
        l
    }

    /// A non-distributed array with the given bounds (the full buffers of gathers).
    pub fn whole(esize: usize, glo: &[i64], ghi: &[i64]) -> Layout {
        let dims = glo
            .iter()
            .zip(ghi)
            .map(|(&lo, &hi)| Dim { glo: lo, ghi: hi, axis: None, tlo: lo, thi: hi, off: 0, slo: 0, shi: 0, cuts: None })
            .collect();
        Layout::new(esize, dims, &[], &[])
    }

    fn place(&mut self, grid: &[usize], coords: &[usize]) {
        let r = self.dims.len();
        self.own_lo = vec![0; r];
        self.own_hi = vec![0; r];
        self.alo = vec![0; r];
        self.ahi = vec![0; r];
        for (d, dim) in self.dims.iter().enumerate() {
            let (lo, hi) = match dim.axis {
                None => (dim.glo, dim.ghi),
                Some(ax) => {
                    let (tl, th) = match &dim.cuts {
                        Some(cuts) => cut_block(cuts, coords[ax]),
                        None => block(dim.tlo, dim.thi, grid[ax], coords[ax]),
                    };
                    if th < tl {
                        (1, 0)
                    } else {
                        ((tl - dim.off).max(dim.glo), (th - dim.off).min(dim.ghi))
                    }
                }
            };
            self.own_lo[d] = lo;
            self.own_hi[d] = hi;
        }
        let empty = self.empty();
        for (d, dim) in self.dims.iter().enumerate() {
            if empty {
                // zero-sized block: keep the lower bound, no shadows
                self.alo[d] = self.own_lo[d].max(dim.glo);
                self.ahi[d] = self.alo[d] - 1;
                if self.own_hi[d] >= self.own_lo[d] {
                    self.ahi[d] = self.own_hi[d];
                }
            } else {
                self.alo[d] = (self.own_lo[d] - dim.slo).max(dim.glo);
                self.ahi[d] = (self.own_hi[d] + dim.shi).min(dim.ghi);
            }
        }
        if empty {
            // make the allocation zero-sized in one dimension at least
            if let Some(d) = (0..r).find(|&d| self.own_hi[d] < self.own_lo[d]) {
                self.alo[d] = self.dims[d].glo;
                self.ahi[d] = self.dims[d].glo - 1;
            }
        }
    }

    /// The layout the process at `coords` has.
    pub fn for_coords(&self, coords: &[usize], grid: &[usize]) -> Layout {
        Layout::new(self.esize, self.dims.clone(), grid, coords)
    }

    pub fn empty(&self) -> bool {
        self.own_lo.iter().zip(&self.own_hi).any(|(l, h)| h < l)
    }

    pub fn owns(&self, idx: &[i64]) -> bool {
        idx.iter()
            .enumerate()
            .all(|(d, &i)| i >= self.own_lo[d] && i <= self.own_hi[d])
    }

    /// Grid coordinates of the (primary) owner of a global index: coordinate 0 on axes the
    /// array does not use.
    pub fn owner_coords(&self, idx: &[i64], grid: &[usize]) -> Vec<usize> {
        let mut c = vec![0usize; grid.len()];
        for (d, dim) in self.dims.iter().enumerate() {
            if let Some(ax) = dim.axis {
                let t = idx[d] + dim.off;
                if let Some(cuts) = &dim.cuts {
                    // the non-empty block holding t; before the first, 0; past the last, the last
                    let p = cuts.len() - 1;
                    c[ax] = (0..p).rev().find(|&k| cuts[k] <= t && (t < cuts[k + 1] || k == p - 1)).unwrap_or(0);
                    continue;
                }
                let (b, last) = block_size(dim.tlo, dim.thi, grid[ax]);
                let k = ((t - dim.tlo).max(0) / b).min(last as i64);
                c[ax] = k as usize;
            }
        }
        c
    }

    /// Element offset of a global index in the local block.
    pub fn offset(&self, idx: &[i64]) -> usize {
        let mut off = 0i64;
        let mut stride = 1i64;
        for d in 0..self.dims.len() {
            off += (idx[d] - self.alo[d]) * stride;
            stride *= (self.ahi[d] - self.alo[d] + 1).max(0);
        }
        off as usize
    }

    pub fn count(&self, lo: &[i64], hi: &[i64]) -> usize {
        lo.iter()
            .zip(hi)
            .map(|(l, h)| (h - l + 1).max(0) as usize)
            .product()
    }

    /// If the section lo..hi is one contiguous piece of the block (every dimension before
    /// some dimension m spans the allocated range, every one after it has extent 1), its
    /// first element's offset and its number of elements. Planes of the last split
    /// dimension, what shadow renewals on the default grid exchange, are contiguous.
    pub fn contiguous(&self, lo: &[i64], hi: &[i64]) -> Option<(usize, usize)> {
        let n = self.count(lo, hi);
        if n == 0 {
            return None;
        }
        let r = self.dims.len();
        // the last dimension with extent > 1 (0 if none)
        let m = (0..r).rev().find(|&d| hi[d] > lo[d]).unwrap_or(0);
        let full = (0..m).all(|d| lo[d] == self.alo[d] && hi[d] == self.ahi[d]);
        full.then(|| (self.offset(lo), n))
    }

    /// Copy the section lo..hi of the block at `a` into a new buffer.
    ///
    /// # Safety
    /// `a` must be this layout's block and the section inside it.
    pub unsafe fn pack(&self, a: *const u8, lo: &[i64], hi: &[i64]) -> Vec<u8> {
        crate::gpu_abi::host_needs(a, self, lo, hi);
        let n = self.count(lo, hi) * self.esize;
        let mut out = Vec::<u8>::with_capacity(n);
        let pos = self.with_buffer(a as *mut u8, lo, hi, out.as_mut_ptr(), true);
        assert_eq!(pos, n, "pack: the runs do not cover the section");
        out.set_len(n);
        out
    }

    /// `pack` into `buf`, which is exactly the section's bytes long.
    ///
    /// # Safety
    /// As `pack`.
    pub unsafe fn pack_into(&self, a: *const u8, lo: &[i64], hi: &[i64], buf: &mut [u8]) {
        crate::gpu_abi::host_needs(a, self, lo, hi);
        assert_eq!(buf.len(), self.count(lo, hi) * self.esize, "pack_into: a buffer of another length than its section");
        let pos = self.with_buffer(a as *mut u8, lo, hi, buf.as_mut_ptr(), true);
        assert_eq!(pos, buf.len(), "pack: the runs do not cover the section");
    }

    /// Copy the section lo..hi between the block at `a` and the packed buffer `buf` (in the
    /// section's order): into the buffer when `into_buf`, out of it otherwise. The bytes
    /// copied.
    ///
    /// # Safety
    /// `a` must be this layout's block and the section inside it; `buf` must hold the
    /// section's bytes. The block is only read when `into_buf`.
    unsafe fn with_buffer(&self, a: *mut u8, lo: &[i64], hi: &[i64], buf: *mut u8, into_buf: bool) -> usize {
        let es = self.esize;
        let mut pos = 0usize;
        let me = (&self.alo[..], &self.ahi[..]);
        row_batches(lo, hi, me, me, &mut |b| {
            let bytes = b.len * es;
            for j in 0..b.count {
                let (block, packed) = (a.add((b.oa + j * b.sa) * es), buf.add(pos));
                if into_buf {
                    copy_run(block, packed, bytes);
                } else {
                    copy_run(packed, block, bytes);
                }
                pos += bytes;
            }
        });
        pos
    }

    /// Copy the section lo..hi of the block at `a` straight into the block at `dst` laid out
    /// as `to` (the same global indices), without a buffer in between.
    ///
    /// # Safety
    /// `a` must be this layout's block, `dst` `to`'s, and the section inside both.
    pub unsafe fn copy_to(&self, a: *const u8, to: &Layout, dst: *mut u8, lo: &[i64], hi: &[i64]) {
        let es = self.esize;
        row_batches(lo, hi, (&self.alo, &self.ahi), (&to.alo, &to.ahi), &mut |b| {
            let bytes = b.len * es;
            for j in 0..b.count {
                copy_run(a.add((b.oa + j * b.sa) * es), dst.add((b.ob + j * b.sb) * es), bytes);
            }
        });
    }

    /// Copy a buffer made by `pack` (same section) into the block at `a`.
    ///
    /// # Safety
    /// As `pack`; `buf` holds the section.
    pub unsafe fn unpack(&self, a: *mut u8, lo: &[i64], hi: &[i64], buf: &[u8]) {
        assert!(buf.len() >= self.count(lo, hi) * self.esize, "unpack: a buffer shorter than its section");
        // (the buffer is only read: out of it)
        self.with_buffer(a, lo, hi, buf.as_ptr() as *mut u8, false);
        crate::gpu_abi::host_wrote(a, self, lo, hi);
    }
}

/// Copy `bytes` bytes from `src` to `dst` (not overlapping): an element of 4, 8 or 16 bytes
/// (a run of a strided face, one element long) without a call to memcpy.
///
/// # Safety
/// As `std::ptr::copy_nonoverlapping`.
#[inline(always)]
unsafe fn copy_run(src: *const u8, dst: *mut u8, bytes: usize) {
    match bytes {
        8 => (dst as *mut u64).write_unaligned((src as *const u64).read_unaligned()),
        4 => (dst as *mut u32).write_unaligned((src as *const u32).read_unaligned()),
        16 => (dst as *mut u128).write_unaligned((src as *const u128).read_unaligned()),
        _ => std::ptr::copy_nonoverlapping(src, dst, bytes),
    }
}

/// `count` runs of `len` elements, the j-th at element offset `oa + j * sa` in the first
/// layout and `ob + j * sb` in the second (`row_batches`).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Batch {
    oa: usize,
    ob: usize,
    len: usize,
    count: usize,
    sa: usize,
    sb: usize,
}

/// Visit the section lo..hi as runs of elements that follow one another in two layouts at
/// once (allocated bounds `a` and `b`; the same twice for one layout), a batch of runs at a
/// time: the runs along the first dimension past the run's (`Batch`). Rows along dimension 0
/// make one run with the rows after them for as long as every dimension below spans its
/// allocated range in both (a section spanning the block's first dimensions, NPB's
/// `RHS(1:5,0:36,J,K)`, is one run per (J,K)); the offsets are stepped, not computed per
/// row. A face across the first dimension (a plane `U(I0,:,:)` of a `(BLOCK,*,*)` array) is
/// runs of one element, a batch of them per column: its copy is a strided loop, not a call a
/// run. Nothing for an empty section.
fn row_batches(lo: &[i64], hi: &[i64], a: (&[i64], &[i64]), b: (&[i64], &[i64]), f: &mut dyn FnMut(Batch)) {
    let r = lo.len();
    if lo.iter().zip(hi).any(|(l, h)| h < l) {
        return;
    }
    if r == 0 {
        f(Batch { oa: 0, ob: 0, len: 1, count: 1, sa: 0, sb: 0 });
        return;
    }
    let strides = |(alo, ahi): (&[i64], &[i64])| -> Vec<i64> {
        let mut s = Vec::with_capacity(r);
        let mut m = 1i64;
        for d in 0..r {
            s.push(m);
            m *= (ahi[d] - alo[d] + 1).max(0);
        }
        s
    };
    let (sa, sb) = (strides(a), strides(b));
    let ext: Vec<i64> = (0..r).map(|d| hi[d] - lo[d] + 1).collect();
    let full = |d: usize| lo[d] == a.0[d] && hi[d] == a.1[d] && lo[d] == b.0[d] && hi[d] == b.1[d];
    // the run: dimensions 0..=k (all but the last of them full in both layouts)
    let mut k = 0;
    let mut len = ext[0];
    while k + 1 < r && full(k) {
        k += 1;
        len *= ext[k];
    }
    // the batch: dimension k + 1, where there is one
    let (count, bsa, bsb) = if k + 1 < r { (ext[k + 1], sa[k + 1], sb[k + 1]) } else { (1, 0, 0) };
    let mut oa: i64 = (0..r).map(|d| (lo[d] - a.0[d]) * sa[d]).sum();
    let mut ob: i64 = (0..r).map(|d| (lo[d] - b.0[d]) * sb[d]).sum();
    let mut idx: Vec<i64> = lo.to_vec();
    loop {
        f(Batch {
            oa: oa as usize,
            ob: ob as usize,
            len: len as usize,
            count: count as usize,
            sa: bsa as usize,
            sb: bsb as usize,
        });
        let mut d = k + 2;
        loop {
            if d >= r {
                return;
            }
            idx[d] += 1;
            oa += sa[d];
            ob += sb[d];
            if idx[d] <= hi[d] {
                break;
            }
            idx[d] = lo[d];
            oa -= ext[d] * sa[d];
            ob -= ext[d] * sb[d];
            d += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dim(lo: i64, hi: i64, axis: Option<usize>) -> Dim {
        Dim { glo: lo, ghi: hi, axis, tlo: lo, thi: hi, off: 0, slo: 1, shi: 1, cuts: None }
    }

    #[test]
    fn grids() {
        assert_eq!(factor_grid(2, 2), vec![1, 2]);
        assert_eq!(factor_grid(4, 2), vec![2, 2]);
        assert_eq!(factor_grid(6, 2), vec![2, 3]);
        assert_eq!(factor_grid(8, 3), vec![2, 2, 2]);
        assert_eq!(factor_grid(3, 1), vec![3]);
        assert_eq!(factor_grid(1, 2), vec![1, 1]);
    }

    #[test]
    fn weighted_blocks_follow_weights_and_sizes() {
        // WGT_BLOCK: rows 1..10 weighing 10, 9, ..., 1 (55 in all) over 2 processes: 27 and 28
        let w: Vec<f64> = (1..=10).rev().map(|x| x as f64).collect();
        assert_eq!(weighted_cuts(1, 10, 2, &w, None).unwrap(), vec![1, 4, 11]);
        // six parts of four rows, the first heavy: every process gets a part, empty blocks
        // only at the end when parts run out
        let w6 = [12.0, 8.0, 4.0, 2.0, 1.0, 1.0];
        assert_eq!(weighted_cuts(1, 24, 4, &w6, None).unwrap(), vec![1, 5, 9, 13, 25]);
        assert_eq!(weighted_cuts(1, 24, 2, &w6, None).unwrap(), vec![1, 5, 25]);
        assert_eq!(weighted_cuts(1, 24, 7, &w6, None).unwrap(), vec![1, 5, 9, 13, 17, 21, 25, 25]);
        // GEN_BLOCK: sizes in order
        assert_eq!(weighted_cuts(0, 9, 3, &[], Some(&[2, 5, 3])).unwrap(), vec![0, 2, 7, 10]);
        assert!(weighted_cuts(0, 9, 3, &[], Some(&[2, 5, 2])).is_err());
        assert!(weighted_cuts(0, 9, 3, &[], Some(&[5, 0, 5])).is_err());
        assert!(weighted_cuts(1, 4, 2, &[0.0, 0.0], None).is_err());
        // a layout on cuts: each process owns its block, owners found by index
        let cuts = std::sync::Arc::new(vec![0, 2, 7, 10]);
        let mut d = dim(0, 9, Some(0));
        d.cuts = Some(cuts);
        let grid = [3];
        let l = Layout::new(8, vec![d], &grid, &[1]);
        assert_eq!((l.own_lo[0], l.own_hi[0]), (2, 6));
        for (i, want) in [(0, 0), (1, 0), (2, 1), (6, 1), (7, 2), (9, 2)] {
            assert_eq!(l.owner_coords(&[i], &grid), vec![want], "index {i}");
        }
    }

    #[test]
    fn blocks_cover_once() {
        for p in 1..6 {
            for n in 1..12 {
                let mut seen = vec![0; n as usize + 1];
                for c in 0..p {
                    let l = Layout::new(4, vec![dim(1, n, Some(0))], &[p], &[c]);
                    for i in l.own_lo[0]..=l.own_hi[0] {
                        seen[i as usize] += 1;
                        assert_eq!(l.owner_coords(&[i], &[p]), vec![c]);
                    }
                    assert!(l.alo[0] >= 1 && l.ahi[0] <= n);
                }
                assert!(seen[1..].iter().all(|&s| s == 1), "p={p} n={n} {seen:?}");
            }
        }
    }

    #[test]
    fn aligned_with_offset() {
        // B(i) lives with A(i+1): B's block is A's block shifted down by one
        let mut d = dim(1, 10, Some(0));
        d.off = 1;
        let b = Layout::new(4, vec![d], &[2], &[1]);
        let a = Layout::new(4, vec![dim(1, 10, Some(0))], &[2], &[1]);
        assert_eq!((a.own_lo[0], a.own_hi[0]), (6, 10));
        assert_eq!((b.own_lo[0], b.own_hi[0]), (5, 10));
    }

    #[test]
    fn pack_unpack_roundtrip() {
        let l = Layout::new(8, vec![dim(1, 4, None), dim(1, 6, Some(0))], &[2], &[1]);
        // owned columns 4..6, allocated 3..6
        assert_eq!((l.alo[1], l.ahi[1]), (3, 6));
        let n = l.count(&l.alo, &l.ahi);
        let mut a: Vec<f64> = (0..n).map(|x| x as f64).collect();
        let buf = unsafe { l.pack(a.as_ptr() as *const u8, &[2, 4], &[3, 5]) };
        let vals: Vec<f64> = buf.chunks(8).map(|c| f64::from_ne_bytes(c.try_into().unwrap())).collect();
        // element (i,j) is at (i-1) + (j-3)*4
        assert_eq!(vals, vec![5.0, 6.0, 9.0, 10.0]);
        // into a buffer of the section's length, whatever it held
        let mut into = vec![0xffu8; buf.len()];
        unsafe { l.pack_into(a.as_ptr() as *const u8, &[2, 4], &[3, 5], &mut into) };
        assert_eq!(into, buf);
        let zeros = vec![0u8; buf.len()];
        unsafe { l.unpack(a.as_mut_ptr() as *mut u8, &[2, 4], &[3, 5], &zeros) };
        assert_eq!(a[5], 0.0);
        assert_eq!(a[4], 4.0);
    }

    #[test]
    fn copy_to_puts_a_section_where_pack_and_unpack_would() {
        // a block with shadows (allocated 3..6 of columns) into the whole array's layout
        let l = Layout::new(8, vec![dim(1, 4, None), dim(1, 6, Some(0))], &[2], &[1]);
        let whole = Layout::whole(8, &[1, 1], &[4, 6]);
        let n = l.count(&l.alo, &l.ahi);
        let a: Vec<f64> = (0..n).map(|x| x as f64 + 0.5).collect();
        for (lo, hi) in [([2, 4], [3, 5]), ([1, 3], [4, 6]), ([4, 6], [4, 6]), ([3, 5], [2, 5])] {
            let mut via_copy = vec![-1.0f64; 24];
            let mut via_pack = vec![-1.0f64; 24];
            unsafe {
                l.copy_to(a.as_ptr() as *const u8, &whole, via_copy.as_mut_ptr() as *mut u8, &lo, &hi);
                let buf = l.pack(a.as_ptr() as *const u8, &lo, &hi);
                whole.unpack(via_pack.as_mut_ptr() as *mut u8, &lo, &hi, &buf);
            }
            assert_eq!(via_copy, via_pack, "{lo:?}..{hi:?}");
        }
        // element (2,4) of the block is at (2-1) + (4-3)*4 = 5, of the whole array at 1 + 3*4
        let mut w = vec![0.0f64; 24];
        unsafe { l.copy_to(a.as_ptr() as *const u8, &whole, w.as_mut_ptr() as *mut u8, &[2, 4], &[2, 4]) };
        assert_eq!(w[13], 5.5);
        assert_eq!(w.iter().filter(|x| **x != 0.0).count(), 1);
    }

    /// Rows that follow one another in memory are packed as one run: the sections spanning
    /// the first dimensions (whole planes, a box of whole columns) and those that do not
    /// give every element in the section's order, each from its own offset.
    #[test]
    fn packed_sections_hold_each_element_in_order() {
        let whole = Layout::whole(8, &[1, 0, 0], &[5, 6, 3]);
        let n = whole.count(&whole.alo, &whole.ahi);
        let a: Vec<f64> = (0..n).map(|x| x as f64).collect();
        for (lo, hi) in [([1, 0, 1], [5, 6, 2]), ([1, 2, 0], [5, 4, 3]), ([2, 0, 0], [4, 6, 3]), ([1, 3, 2], [5, 3, 2]), ([3, 0, 0], [3, 6, 3]), ([4, 2, 1], [4, 5, 1])] {
            let buf = unsafe { whole.pack(a.as_ptr() as *const u8, &lo, &hi) };
            let got: Vec<f64> = buf.chunks(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect();
            let mut want = vec![];
            for k in lo[2]..=hi[2] {
                for j in lo[1]..=hi[1] {
                    for i in lo[0]..=hi[0] {
                        want.push(a[whole.offset(&[i, j, k])]);
                    }
                }
            }
            assert_eq!(got, want, "{lo:?}..{hi:?}");
            let mut back = vec![-1.0f64; n];
            unsafe { whole.unpack(back.as_mut_ptr() as *mut u8, &lo, &hi, &buf) };
            let mut copied = vec![-1.0f64; n];
            unsafe { whole.copy_to(a.as_ptr() as *const u8, &whole, copied.as_mut_ptr() as *mut u8, &lo, &hi) };
            assert_eq!(back, copied, "{lo:?}..{hi:?}");
            assert_eq!(back.iter().filter(|x| **x >= 0.0).count(), want.len());
        }
    }

    /// Faces across the first dimension (runs of one element, copied in a strided loop) of
    /// 4-, 8- and 16-byte elements and of an odd size: each element in order, back in place.
    #[test]
    fn strided_faces_of_every_element_size() {
        for es in [4usize, 8, 16, 3] {
            let whole = Layout::whole(es, &[1, 1, 1], &[6, 5, 4]);
            let n = whole.count(&whole.alo, &whole.ahi);
            let a: Vec<u8> = (0..n * es).map(|x| (x * 7 % 251) as u8).collect();
            for (lo, hi) in [([2, 1, 1], [2, 5, 4]), ([6, 2, 3], [6, 4, 3]), ([1, 1, 1], [2, 5, 4])] {
                let buf = unsafe { whole.pack(a.as_ptr(), &lo, &hi) };
                let mut want = vec![];
                for k in lo[2]..=hi[2] {
                    for j in lo[1]..=hi[1] {
                        for i in lo[0]..=hi[0] {
                            let o = whole.offset(&[i, j, k]) * es;
                            want.extend_from_slice(&a[o..o + es]);
                        }
                    }
                }
                assert_eq!(buf, want, "{es} bytes, {lo:?}..{hi:?}");
                let mut back = vec![0u8; n * es];
                unsafe { whole.unpack(back.as_mut_ptr(), &lo, &hi, &buf) };
                let mut copied = vec![0u8; n * es];
                unsafe { whole.copy_to(a.as_ptr(), &whole, copied.as_mut_ptr(), &lo, &hi) };
                assert_eq!(back, copied, "{es} bytes, {lo:?}..{hi:?}");
                for k in 1..=4 {
                    for j in 1..=5 {
                        for i in 1..=6 {
                            let o = whole.offset(&[i, j, k]) * es;
                            let inside = (0..3).all(|d| [i, j, k][d] >= lo[d] && [i, j, k][d] <= hi[d]);
                            let want = if inside { &a[o..o + es] } else { &[0u8; 16][..es] };
                            assert_eq!(&back[o..o + es], want, "({i},{j},{k}) {es} bytes, {lo:?}..{hi:?}");
                        }
                    }
                }
            }
        }
    }

    /// A copy between two layouts that differ (a block with shadow edges along its divided
    /// second dimension, the whole array) puts every element of the section at its own global
    /// index and nothing else, whether the section's first dimensions span both layouts (one
    /// run per outer index) or not.
    #[test]
    fn copies_between_layouts_keep_global_indices() {
        let l = Layout::new(8, vec![dim(1, 5, None), dim(1, 8, Some(0)), dim(0, 3, None)], &[2], &[1]);
        let whole = Layout::whole(8, &[1, 1, 0], &[5, 8, 3]);
        let n = l.count(&l.alo, &l.ahi);
        let a: Vec<f64> = (0..n).map(|x| x as f64 + 1.0).collect();
        let own = (l.own_lo.clone(), l.own_hi.clone());
        for (lo, hi) in [(own.0.clone(), own.1.clone()), (vec![1, 5, 1], vec![5, 7, 2]), (vec![2, 6, 0], vec![4, 8, 3]), (vec![1, 5, 3], vec![5, 5, 3])] {
            let mut w = vec![0.0f64; whole.count(&whole.alo, &whole.ahi)];
            unsafe { l.copy_to(a.as_ptr() as *const u8, &whole, w.as_mut_ptr() as *mut u8, &lo, &hi) };
            let mut count = 0;
            for k in lo[2]..=hi[2] {
                for j in lo[1]..=hi[1] {
                    for i in lo[0]..=hi[0] {
                        assert_eq!(w[whole.offset(&[i, j, k])], a[l.offset(&[i, j, k])], "({i},{j},{k}) of {lo:?}..{hi:?}");
                        count += 1;
                    }
                }
            }
            assert_eq!(w.iter().filter(|x| **x != 0.0).count(), count, "{lo:?}..{hi:?}");
        }
    }

    #[test]
    fn contiguous_sections() {
        // allocated 1..4 x 3..6 (see above)
        let l = Layout::new(8, vec![dim(1, 4, None), dim(1, 6, Some(0))], &[2], &[1]);
        // whole columns (planes of the split dimension): contiguous
        assert_eq!(l.contiguous(&[1, 3], &[4, 3]), Some((0, 4)));
        assert_eq!(l.contiguous(&[1, 5], &[4, 6]), Some((8, 8)));
        // part of one column: contiguous; part of two columns: not
        assert_eq!(l.contiguous(&[2, 4], &[3, 4]), Some((5, 2)));
        assert_eq!(l.contiguous(&[2, 4], &[3, 5]), None);
        // a row across columns: not
        assert_eq!(l.contiguous(&[1, 3], &[1, 6]), None);
        assert_eq!(l.contiguous(&[2, 4], &[1, 4]), None);
        // the pack of a contiguous section is that piece of the block
        let n = l.count(&l.alo, &l.ahi);
        let a: Vec<f64> = (0..n).map(|x| x as f64).collect();
        let buf = unsafe { l.pack(a.as_ptr() as *const u8, &[1, 5], &[4, 6]) };
        let vals: Vec<f64> = buf
            .chunks(8)
            .map(|c| f64::from_ne_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(vals, a[8..16]);
    }
}
