// Package docs holds the tests of the project's documentation: README.md
// stays a short front page, and no relative link in it or in docs/ is dead.
package docs
