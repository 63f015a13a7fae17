// Package doclinks holds the test that every relative link of the README,
// CONTRIBUTING.md and docs/ leads to a file that exists and, where it names
// one, to a heading of that file: a page split or a heading renamed fails
// it instead of leaving readers a dead link.
package doclinks
