//! Running independent work on several threads: hashing files (bound by the processor) and
//! staging or syncing files (bound by the disk, where more threads than cores let the disk
//! take several requests at once). Results keep the order of the items; the first error stops
//! the rest.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// How many threads processor-bound work uses: one per core.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Applies `f` to every item on one thread per core; the results are in the items' order.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    map_into(items.iter().collect(), f)
}

/// [`map`], taking the items by value.
pub fn map_into<T: Send, R: Send>(items: Vec<T>, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    let threads = cores().min(items.len());
    if threads <= 1 {
        return items.into_iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    let mut parts: Vec<Vec<T>> = Vec::with_capacity(threads);
    let mut items = items.into_iter();
    loop {
        let part: Vec<T> = items.by_ref().take(chunk).collect();
        if part.is_empty() {
            break;
        }
        parts.push(part);
    }
    let f = &f;
    let mut parts = parts.into_iter();
    let first = parts.next().expect("at least two parts");
    std::thread::scope(|scope| {
        let handles: Vec<_> = parts
            .map(|part| scope.spawn(move || part.into_iter().map(f).collect::<Vec<R>>()))
            .collect();
        // The calling thread takes the first part itself, rather than wait for threads that
        // the scheduler may queue on a busy core beside it while its own stays idle.
        let mut results: Vec<R> = first.into_iter().map(f).collect();
        for handle in handles {
            results.extend(handle.join().expect("a worker thread panicked"));
        }
        results
    })
}

/// Runs `work` on every item on up to `threads` threads, each taking the next item when it is
/// done; stops at the first error, which is returned.
pub fn try_each<T: Sync, E: Send>(
    items: &[T],
    threads: usize,
    work: impl Fn(&T) -> Result<(), E> + Sync,
) -> Result<(), E> {
    let threads = threads.min(items.len());
    if threads <= 1 {
        return items.iter().try_for_each(work);
    }
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let errors: Vec<E> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    while !stop.load(Ordering::Relaxed) {
                        let item = items.get(next.fetch_add(1, Ordering::Relaxed))?;
                        if let Err(e) = work(item) {
                            stop.store(true, Ordering::Relaxed);
                            return Some(e);
                        }
                    }
                    None
                })
            })
            .collect();
        handles
            .into_iter()
            .filter_map(|h| h.join().expect("a worker thread panicked"))
            .collect()
    });
    errors.into_iter().next().map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_keeps_the_order_of_the_items() {
        let items: Vec<usize> = (0..1000).collect();
        assert_eq!(
            map(&items, |n| n * 2),
            (0..1000).map(|n| n * 2).collect::<Vec<_>>()
        );
    }

    #[test]
    fn try_each_does_everything_or_returns_an_error() {
        let items: Vec<usize> = (0..500).collect();
        let done = AtomicUsize::new(0);
        try_each(&items, 8, |_| {
            done.fetch_add(1, Ordering::Relaxed);
            Ok::<(), ()>(())
        })
        .unwrap();
        assert_eq!(done.load(Ordering::Relaxed), 500);
        assert_eq!(
            try_each(&items, 8, |&n| if n == 321 { Err(n) } else { Ok(()) }),
            Err(321)
        );
    }
}
