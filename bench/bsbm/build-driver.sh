#!/bin/sh
# Builds the BSBM test driver and data generator (Java, Apache License 2.0)
# in a checkout of GitHub afs/BSBM-Local (commit 871f5ae) outside this tree:
# the driver's code is never committed here. Two edits first:
#  - the pom drops ssj's dependencies (dsol, from a repository that no
#    longer answers; the generator uses only ssj's distributions);
#  - DESCRIBE and CONSTRUCT ask for "application/rdf+xml, text/turtle;q=0.9"
#    instead of RDF/XML only: Cadenza writes graphs as Turtle or N-Triples,
#    and the timed runs only count the bytes of such answers.
# Then `mvn package dependency:copy-dependencies` (Java 8+, Maven Central).
#
# Usage: bench/bsbm/build-driver.sh BSBM_LOCAL_CHECKOUT
# Then:  java -cp 'CHECKOUT/target/*:CHECKOUT/target/dependency/*' \
#          benchmark.generator.Generator -pc 28480 -s nt -fc -fn bsbm_10m -dir td_data_10m
#        (in a folder holding the checkout's givennames.txt and titlewords.txt;
#        -pc 2785 is the 1M set of ../shared/data/bsbm)
set -eu
dir=${1:?usage: build-driver.sh BSBM_LOCAL_CHECKOUT}
cd "$dir"
grep -q '<exclusion><groupId>\*</groupId>' pom.xml || sed -i \
  's|<artifactId>ssj</artifactId>|&<exclusions><exclusion><groupId>*</groupId><artifactId>*</artifactId></exclusion></exclusions>|' \
  pom.xml
sed -i 's|conn.setRequestProperty("Accept", "application/rdf+xml");|conn.setRequestProperty("Accept", "application/rdf+xml, text/turtle;q=0.9");|' \
  src/benchmark/testdriver/NetQuery.java
mvn -q -B -DskipTests package dependency:copy-dependencies
ls target/*.jar
